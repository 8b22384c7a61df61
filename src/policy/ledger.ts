/**
 * The ledger: what the workflow knows about each message in the live context — numbers and ids,
 * never bodies (those stay in the transcript store). Pure: no I/O, no Temporal imports.
 */
import { z } from 'zod';

export const LedgerRole = { system: 'system', user: 'user', assistant: 'assistant', tool: 'tool' } as const;
export type LedgerRole = (typeof LedgerRole)[keyof typeof LedgerRole];

/**
 * What a ledger entry stands for when it is not an original message. Absent for originals.
 * - `summary`: a compaction summary, sent as a `user` message placed right after the pinned task
 *   (a `system` message mid-conversation is ignored or rejected by several servers, and an
 *   `assistant` one would read as a reply the model gave). It covers the original seqs in `covers`.
 * - `view`: a head-and-tail cut of a tool result, still a `tool` message answering the same
 *   tool-call id; `replaces` names the original seq, readable whole through `read_output`. An
 *   assistant message's view cuts the long string values of its tool-call arguments and keeps what
 *   it declares (DESIGN §5 "Views of large tool-call arguments").
 * - `memory`: the session memory agentd builds itself from the store at each summary compaction
 *   (DESIGN §5 "Session memory"), a `user` message placed right before the summary. It
 *   stands for no original (everything it quotes is still accounted for elsewhere) and the next
 *   summary compaction replaces it with a fresh one.
 */
export const LedgerKind = { summary: 'summary', view: 'view', memory: 'memory' } as const;
export type LedgerKind = (typeof LedgerKind)[keyof typeof LedgerKind];

const seqRun = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).readonly();

const LedgerEntrySchema = z.object({
  /** Key of the body in the transcript store; allocated by the workflow, so retries are idempotent. */
  seq: z.number().int().nonnegative(),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  /** Tokens the message weighs in a prompt (tokenizer count, tool-call arguments included). */
  tokens: z.number().int().nonnegative(),
  chars: z.number().int().nonnegative(),
  /** Turn the message belongs to; 0 is the system prompt. */
  turn: z.number().int().nonnegative(),
  /** Step within the session (one model call plus its tool results); 0 for messages that open a turn. */
  step: z.number().int().nonnegative(),
  /** Tool-call ids an assistant message declares. */
  declares: z.array(z.string()).optional(),
  /** The tool-call id a tool message answers. */
  answers: z.string().optional(),
  /** Never summarized or dropped: the system prompt and the original task. */
  pinned: z.boolean().optional(),
  /** Set on entries that are not original messages (a summary, a view or the session memory). */
  kind: z.enum(['summary', 'view', 'memory']).optional(),
  /**
   * For a summary: the original seqs it covers, as sorted runs, including everything a previous
   * summary it merged covered — so every original stays accounted for (DESIGN §5 "Nothing vanishes").
   */
  covers: z.array(seqRun).optional(),
  /** For a view: the original seq it cuts (never another view: re-cuts are made from the original). */
  replaces: z.number().int().nonnegative().optional(),
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** What an activity measured when it stored a message; the workflow adds turn and step. */
export type MessageMeasure = Pick<LedgerEntry, 'seq' | 'role' | 'tokens' | 'chars' | 'declares' | 'answers'>;
