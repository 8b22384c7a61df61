/**
 * Oversized tool results (DESIGN §5): one too big to ever sit in the context whole is stored whole
 * and replaced right away by a head-and-tail view that `read_output` pages through. Pure.
 */
import type { LedgerEntry } from './ledger';
import type { CompactionSettings } from './settings';
import { MIN_VIEW_CHARS, splitView, VIEW_MARKER_TOKENS, viewCut, type ViewCut } from './viewSize';

/**
 * Share of the oversize threshold one view of an oversized result may weigh: a step can carry four
 * such results, and their views together must still stay under the threshold.
 */
const OVERSIZED_VIEW_SHARE = 0.25;

/**
 * True when `entry` weighs more than `oversizeShareOfWindow` of the window. The workflow asks right
 * after a tool result arrives, before the next decision: waiting for compaction would mean one
 * result could fill the context on its own, with nothing older left to summarize away.
 */
export function isOversized(
  entry: Pick<LedgerEntry, 'tokens'>,
  settings: Pick<CompactionSettings, 'oversizeShareOfWindow'>,
  contextWindow: number,
): boolean {
  return entry.tokens > oversizeThreshold(settings, contextWindow);
}

/**
 * The view that replaces an oversized result: the configured head and tail, made smaller (same
 * proportion, never under `MIN_VIEW_CHARS`) when dense output would make even that view weigh more
 * than `OVERSIZED_VIEW_SHARE` of the threshold — on an 8K window 5 KB of minified code is ~2K tokens,
 * as much as the result that was too big. Undefined when no view is smaller than the entry.
 */
export function oversizedView(
  entry: Pick<LedgerEntry, 'seq' | 'tokens' | 'chars'>,
  settings: Pick<CompactionSettings, 'pruneHeadChars' | 'pruneTailChars' | 'oversizeShareOfWindow'>,
  contextWindow: number,
): ViewCut | undefined {
  const configured = settings.pruneHeadChars + settings.pruneTailChars;
  const limitTokens = Math.floor(oversizeThreshold(settings, contextWindow) * OVERSIZED_VIEW_SHARE) - VIEW_MARKER_TOKENS;
  const affordable = entry.tokens > 0 ? Math.floor((Math.max(0, limitTokens) * entry.chars) / entry.tokens) : configured;
  const kept = Math.max(Math.min(MIN_VIEW_CHARS, configured), Math.min(configured, affordable));
  const { head, tail } = splitView(kept, settings.pruneHeadChars, settings.pruneTailChars);
  return viewCut(entry, head, tail);
}

function oversizeThreshold(settings: Pick<CompactionSettings, 'oversizeShareOfWindow'>, contextWindow: number): number {
  return Math.floor(settings.oversizeShareOfWindow * contextWindow);
}
