/**
 * Model-free emergency truncation (DESIGN §5 "Never send a known-oversize request"): drop the oldest
 * whole steps until the estimate is under a goal. Used when compaction cannot help (breaker open,
 * nothing left to summarize, a second overflow). Pure; the workflow records what was dropped.
 */
import { appendOriginals } from './accounting';
import { projectTokens, rawContextTokens, type ContextEstimate } from './estimate';
import { LedgerKind, type LedgerEntry } from './ledger';
import { toSeqRuns, type SeqRun } from './seqRuns';
import { stepSpans, type StepSpan } from './steps';

export interface TruncationPlan {
  /** Live seqs to drop, in ledger order: whole steps, never pinned, never the newest step. */
  readonly drop: SeqRun[];
  /** The original seqs those entries stand for (ascending runs): what the truncation event lists. */
  readonly droppedOriginals: SeqRun[];
  /** Projected estimate (server tokens) once the entries are gone. */
  readonly expectedAfter: number;
  /** `expectedAfter` is at or under the goal; false when even dropping every allowed step was not enough. */
  readonly fits: boolean;
}

/** How a truncation treats the summary and the session memory. */
export interface TruncationRecords {
  /**
   * Never drop a summary or a session memory: only the oldest kept steps go
   * (DESIGN §5 "Session memory"). False keeps the older rule, for replay: they go last, after
   * every raw step.
   */
  readonly keep: boolean;
  /**
   * The workflow stores a fresh memory in place of the current one after the truncation, and the
   * goal already left room for it: the current memory's tokens are not counted (`keep` only).
   */
  readonly memoryReplaced: boolean;
}

/**
 * Drops whole steps, oldest first, until the projected estimate is at most `goalTokens`. A summary
 * or a session memory is never dropped (`records.keep`; before it, they went last): they are the
 * densest record of the older work and bounded in size. The newest step always stays, so the model
 * still sees what it just did.
 */
export function selectTruncation(
  ledger: readonly LedgerEntry[],
  goalTokens: number,
  estimate: ContextEstimate,
  perMessageOverheadTokens: number,
  toolSchemaTokens: number,
  records: TruncationRecords = { keep: false, memoryReplaced: false },
): TruncationPlan {
  const spans = stepSpans(ledger, perMessageOverheadTokens);
  const droppable: StepSpan[] = [];
  const summaries: StepSpan[] = [];
  for (let i = 0; i < spans.length - 1; i++) (spans[i]!.summary ? summaries : droppable).push(spans[i]!);
  if (!records.keep) droppable.push(...summaries);

  let raw = rawContextTokens(ledger, perMessageOverheadTokens, toolSchemaTokens);
  if (records.keep && records.memoryReplaced) {
    // The fresh memory's room is in the goal already; counting the one it replaces too would drop steps for nothing.
    for (const entry of ledger) if (entry.kind === LedgerKind.memory && !entry.pinned) raw -= entry.tokens + perMessageOverheadTokens;
  }
  const project = (): number => projectTokens(raw, estimate.calibration, estimate.excessTokens);
  // The current estimate may be anchored above the projection: measure progress from the larger.
  let expectedAfter = Math.max(estimate.tokens, project());
  const dropped: StepSpan[] = [];
  for (const span of droppable) {
    if (expectedAfter <= goalTokens) break;
    raw -= span.weight;
    dropped.push(span);
    expectedAfter = project();
  }
  dropped.sort((a, b) => a.start - b.start);
  const seqs: number[] = [];
  const originals: number[] = [];
  for (const span of dropped) {
    for (let i = span.start; i < span.end; i++) {
      seqs.push(ledger[i]!.seq);
      appendOriginals(originals, ledger[i]!);
    }
  }
  originals.sort((a, b) => a - b);
  return {
    drop: toSeqRuns(seqs),
    droppedOriginals: toSeqRuns(originals),
    expectedAfter,
    fits: expectedAfter <= goalTokens,
  };
}
