/**
 * Model-free pruning (DESIGN §5): tool results older than the tail and longer than `pruneMinChars`
 * become head-and-tail views; when that alone reclaims enough, the summary call is skipped. Pure.
 */
import { LedgerKind, type LedgerEntry } from './ledger';
import type { CompactionSettings } from './settings';
import { viewCut, type ViewCut } from './viewSize';

export interface PruneSelection {
  /** Tool results to replace with views, in ledger order. */
  readonly cuts: ViewCut[];
  /** Our tokens reclaimed if every view comes out at its expected size. */
  readonly savedTokens: number;
}

type PruneSettings = Pick<CompactionSettings, 'pruneMinChars' | 'pruneHeadChars' | 'pruneTailChars'>;

/**
 * Tool results in `ledger[from, to)` (the region older than the tail) worth pruning: over
 * `pruneMinChars`, not already a view (a view of a view saves nothing and loses the marker), not pinned.
 */
export function selectPrune(ledger: readonly LedgerEntry[], from: number, to: number, settings: PruneSettings): PruneSelection {
  const cuts: ViewCut[] = [];
  let savedTokens = 0;
  for (let i = Math.max(0, from); i < Math.min(to, ledger.length); i++) {
    const entry = ledger[i]!;
    if (entry.role !== 'tool' || entry.pinned || entry.kind === LedgerKind.view) continue;
    if (entry.chars <= settings.pruneMinChars) continue;
    const cut = viewCut(entry, settings.pruneHeadChars, settings.pruneTailChars);
    if (!cut) continue;
    cuts.push(cut);
    savedTokens += cut.tokensBefore - cut.expectedTokens;
  }
  return { cuts, savedTokens };
}

/** The numbers `shouldSkipSummary` weighs, all known before any activity runs. */
export interface SkipSummaryInput {
  /** Our tokens pruning reclaims (prune views and tail cuts). */
  readonly savedTokens: number;
  /** Our tokens of the whole live transcript before pruning. */
  readonly transcriptTokens: number;
  /** Estimate (server tokens) after pruning alone. */
  readonly estimateAfterPrune: number;
  /** The compaction trigger. */
  readonly triggerTokens: number;
}

/**
 * Pruning alone is enough: it reclaims at least `pruneSkipSummaryRatio` of the transcript and brings
 * the estimate under the trigger. Then no model call is spent, and nothing is paraphrased.
 */
export function shouldSkipSummary(input: SkipSummaryInput, settings: Pick<CompactionSettings, 'pruneSkipSummaryRatio'>): boolean {
  if (input.savedTokens <= 0 || input.transcriptTokens <= 0) return false;
  return (
    input.savedTokens >= settings.pruneSkipSummaryRatio * input.transcriptTokens &&
    input.estimateAfterPrune < input.triggerTokens
  );
}
