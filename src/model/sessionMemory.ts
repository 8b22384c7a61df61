/**
 * The session memory block (DESIGN §5 "Session memory"): built by agentd from the stored
 * transcript at each summary compaction and truncation, without a model, so what the user and the
 * agent stated, what tool outputs said and the artifact trail survive whatever the summarizer
 * keeps, or when none works. Pure over the rows it is given; the storeSessionMemory activity reads
 * them from the store. Each section is built in its own module under `memory/`.
 */
import { countTextTokens } from './textTokens';
import { memoryMessageHeader } from './memoryFormat';
import type { ChatMessage } from './messages';
import type { SeqRun } from '../policy/seqRuns';
import type { MemoryRow } from './memory/memoryRow';
import { commandLines } from './memory/commandTrail';
import { readFiles, writtenFiles } from './memory/fileTrail';
import { fitSections, sectionsTokens } from './memory/fitSections';
import { leftSection, leftSeqs } from './memory/leftContext';
import { outputLines } from './memory/outputLines';
import { statedLines } from './memory/statedLines';
import { toolFacts } from './memory/toolResults';
import { quoteUserMessages, userMessages } from './memory/userMessages';

/** Share of the budget the verbatim user messages may take; the other sections get the rest. */
const USER_MESSAGES_SHARE = 0.5;
/**
 * Share of what the user messages leave that what was stated and what outputs said may take before
 * the artifact trail gets any. A trail line points at a file or a command the agent can look at
 * again; a statement or a printed value that leaves here is gone from the context. With an equal
 * split, 32K sessions of `npm run bench -- --only=cost` lost a printed number and a compiler error
 * from a starved outputs section while the trail listed notes files (10/13 facts; 13/13 since). The
 * trail keeps the rest, and whatever the statements leave unused.
 */
const STATED_SHARE = 0.6;

export interface SessionMemoryInput {
  /** Every stored row of the session, in seq order. */
  readonly rows: readonly MemoryRow[];
  /** The last pinned seq (the task): user messages after it are quoted. */
  readonly taskSeq: number;
  /** Original seqs the new summary covers: they left the context. */
  readonly summarized: readonly SeqRun[];
  /** Original seqs still in the context after the compaction (pinned and tail). */
  readonly kept: readonly SeqRun[];
  /** Largest block, in tokens (the plan reserved it). */
  readonly budgetTokens: number;
}

/**
 * The memory message's text, within `budgetTokens`: header and "what left" always, user messages
 * up to half the rest, then the other sections sharing what is left. What was stated and what tool
 * outputs said is taken from the messages that left the context only: the ones still in it say it
 * themselves.
 */
export function buildSessionMemory(input: SessionMemoryInput): string {
  const originals = input.rows.filter((row) => row.meta.kind === undefined);
  const throughSeq = originals.at(-1)?.seq ?? input.taskSeq;
  const header = memoryMessageHeader(throughSeq);
  const outOfContext = leftSeqs(originals, input.kept);
  const leftLines = leftSection(outOfContext, input.summarized, originals);
  let remaining = input.budgetTokens - countTextTokens(header) - countTextTokens(leftLines.join('\n')) - 8;

  const users = userMessages(originals, input.taskSeq);
  const quoted = quoteUserMessages(users, Math.max(0, Math.floor(remaining * USER_MESSAGES_SHARE)));
  remaining -= countTextTokens(quoted.lines.join('\n'));

  const leaving = originals.filter((row) => outOfContext.has(row.seq) && row.seq > input.taskSeq);
  const tools = toolFacts(originals);
  const stated = fitSections(
    [
      { title: '## Stated by the user and the agent (constraints, decisions, findings; newest first)', lines: statedLines(leaving, quoted.verbatim) },
      {
        title: '## What tool outputs said (errors, failing checks, printed values; newest first)',
        lines: outputLines(tools.filter((fact) => outOfContext.has(fact.resultSeq))),
      },
    ],
    Math.floor(remaining * STATED_SHARE),
  );
  const trail = fitSections(
    [
      { title: '## Files written or edited (path, last seq, size)', lines: writtenFiles(tools) },
      { title: '## Commands, newest first (exit status and last output line; runs alike counted once)', lines: commandLines(tools) },
      { title: '## Files read or listed (newest first)', lines: readFiles(tools) },
    ],
    remaining - sectionsTokens(stated),
  );
  return [header, '', ...[quoted.lines, ...stated, ...trail].flatMap((lines) => (lines.length > 0 ? [...lines, ''] : [])), ...leftLines].join('\n');
}

/** The memory as the message the context carries. */
export function sessionMemoryMessage(text: string): ChatMessage {
  return { role: 'user', content: text };
}
