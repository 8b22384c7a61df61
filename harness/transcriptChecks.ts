/**
 * Audits of a stored transcript that hold whatever happened to the workers: seqs without holes,
 * every tool result paired with its call, and no model call repeated for a reply already stored.
 */
import type { StoredMessage } from '../src/store/transcriptStore';
import { replyKey, type ProxiedCall } from './recordingProxy';

/** Seqs missing between 0 and the highest stored seq (a gap means a lost or skipped write). */
export function seqGaps(rows: readonly StoredMessage[]): number[] {
  const present = new Set(rows.map((row) => row.seq));
  const highest = rows.reduce((max, row) => Math.max(max, row.seq), -1);
  const gaps: number[] = [];
  for (let seq = 0; seq <= highest; seq += 1) if (!present.has(seq)) gaps.push(seq);
  return gaps;
}

/** Views of oversized results repeat the original's tool_call_id under a later seq; they are context, not answers. */
function isView(row: StoredMessage): boolean {
  return row.meta.kind === 'view';
}

/** A tool result as the session received it, paired with the call that asked for it. */
export interface ToolResult {
  name: string;
  args: string;
  output: string;
}

/** The tool results in seq order, without the views that compaction later put in their place. */
export function toolResults(rows: readonly StoredMessage[]): ToolResult[] {
  const calls = new Map<string, { name: string; args: string }>();
  const found: ToolResult[] = [];
  for (const row of rows) {
    if (isView(row)) continue;
    const { message } = row;
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) calls.set(call.id, { name: call.function.name, args: call.function.arguments });
    } else if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id);
      found.push({ name: call?.name ?? '?', args: call?.args ?? '', output: message.content });
    }
  }
  return found;
}

/**
 * Problems with tool pairing, in seq order: a tool row must answer a call declared by the nearest
 * preceding assistant row, once, and every declared call must be answered before the next assistant
 * or user row. Empty when the transcript is well formed.
 */
export function pairingProblems(rows: readonly StoredMessage[]): string[] {
  const problems: string[] = [];
  let declaredAt = -1;
  let open = new Set<string>();
  const closeOpen = (before: number) => {
    if (open.size > 0) problems.push(`seq ${declaredAt} declares ${[...open].join(', ')}, unanswered before seq ${before}`);
  };
  for (const row of rows) {
    if (isView(row)) continue;
    const { message } = row;
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) {
        problems.push(`seq ${row.seq} answers ${message.tool_call_id}, not an open call of the assistant row before it (seq ${declaredAt})`);
      }
      continue;
    }
    closeOpen(row.seq);
    open = new Set(message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : []);
    declaredAt = row.seq;
  }
  closeOpen(Number.POSITIVE_INFINITY);
  return problems;
}

export interface DuplicateAudit {
  /** Stored replies (seq) no recorded request produced before the row was written: the audit is blind to them. */
  readonly unmatched: number[];
  /** Requests whose context had already been answered and stored, sent after that reply's createdAt. */
  readonly duplicates: ReadonlyArray<{ readonly seq: number; readonly at: number; readonly storedAt: number }>;
  /** Requests sent again before the reply was stored (the earlier answer was lost with a worker). */
  readonly retriedBeforeStore: number;
}

/**
 * Matches each stored assistant row to the requests that produced it (same reply from the
 * deterministic simulator, hence the same context), then counts requests with that context sent
 * after the row was stored: those are model calls a retry should have answered from the store.
 */
export function auditModelCalls(rows: readonly StoredMessage[], calls: readonly ProxiedCall[]): DuplicateAudit {
  const unmatched: number[] = [];
  const duplicates: Array<{ seq: number; at: number; storedAt: number }> = [];
  let retriedBeforeStore = 0;
  for (const row of rows) {
    if (row.message.role !== 'assistant') continue;
    const key = replyKey(row.message);
    const storedAt = Date.parse(row.createdAt);
    const producers = calls.filter((call) => call.replyKey === key && call.at <= storedAt);
    if (producers.length === 0) {
      unmatched.push(row.seq);
      continue;
    }
    const contexts = new Set(producers.map((call) => call.contextKey));
    const sameContext = calls.filter((call) => contexts.has(call.contextKey));
    for (const call of sameContext) {
      if (call.at > storedAt) duplicates.push({ seq: row.seq, at: call.at, storedAt });
    }
    retriedBeforeStore += sameContext.filter((call) => call.at <= storedAt).length - 1;
  }
  return { unmatched, duplicates, retriedBeforeStore };
}
