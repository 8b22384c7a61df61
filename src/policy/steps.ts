/**
 * Splits the unpinned part of the ledger into steps, the atoms of compaction (DESIGN §3): a message
 * that is not a tool result, plus the tool results that follow it. Pure.
 *
 * Steps are found by position, not by the `turn`/`step` numbers, because position is what an
 * OpenAI-compatible server checks: tool messages must directly follow the assistant message that
 * declared them. Keeping or dropping whole position-steps therefore can never orphan a tool call.
 */
import { LedgerKind, type LedgerEntry } from './ledger';

/** A run of ledger entries that is kept, summarized or dropped as one. */
export interface StepSpan {
  /** Ledger index of the first entry. */
  readonly start: number;
  /** Ledger index after the last entry. */
  readonly end: number;
  /** Turn of the first entry. */
  readonly turn: number;
  /** Tokens of the entries plus their per-message overhead (our count). */
  readonly weight: number;
  /**
   * A compaction summary or the session memory: a span of its own, never part of a tail; the next
   * summary merges the one and replaces the other.
   */
  readonly summary: boolean;
}

/** The steps of the unpinned entries, in ledger order; pinned entries belong to none. */
export function stepSpans(ledger: readonly LedgerEntry[], perMessageOverheadTokens: number): StepSpan[] {
  const spans: StepSpan[] = [];
  let open: { start: number; end: number; turn: number; weight: number; summary: boolean } | undefined;
  const close = (): void => {
    if (open) spans.push(open);
    open = undefined;
  };
  for (let i = 0; i < ledger.length; i++) {
    const entry = ledger[i]!;
    const weight = entry.tokens + perMessageOverheadTokens;
    if (entry.pinned) {
      close();
      continue;
    }
    // A tool result joins the open step; one with no open step (never in a valid ledger) opens its
    // own, so it is still accounted for rather than silently attached to a pinned message.
    if (entry.role === 'tool' && open && !open.summary) {
      open.end = i + 1;
      open.weight += weight;
      continue;
    }
    close();
    open = { start: i, end: i + 1, turn: entry.turn, weight, summary: entry.kind === LedgerKind.summary || entry.kind === LedgerKind.memory };
  }
  close();
  return spans;
}
