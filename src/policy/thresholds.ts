/**
 * The thresholds an estimate is compared with (DESIGN §5): trigger, hard limit, and the tail cap
 * that depends on what compaction must keep anyway. Pure.
 */
import type { ResolvedCompactionSettings } from './settings';
import { sanitizeCalibration } from './estimate';

type Thresholds = Pick<ResolvedCompactionSettings, 'triggerTokens' | 'hardLimitTokens'>;

/** Auto-compaction is due: the estimate reached the trigger. */
export function isAtTrigger(estimateTokens: number, settings: Thresholds): boolean {
  return estimateTokens >= settings.triggerTokens;
}

/** The next request would leave less than `minRoomTokens` for the answer: never send it. */
export function isOverHardLimit(estimateTokens: number, settings: Thresholds): boolean {
  return estimateTokens > settings.hardLimitTokens;
}

/**
 * The tail cap in our (uncalibrated) tokens: min(tailCapTokens, half of (trigger − fixed − summary
 * and memory budgets), target − fixed − summary and memory budgets), where `fixedTokens` (server tokens) is what every
 * compacted context keeps anyway: pinned messages, tool schemas and any server excess. Halving
 * leaves the other half for the steps that follow, so a compacted context does not trip the trigger
 * again at the next step; the target bound is the hysteresis of DESIGN §5. Can be 0: the tail
 * selection still keeps one whole step, cut down as far as possible.
 */
export function effectiveTailCap(
  settings: Pick<
    ResolvedCompactionSettings,
    'tailCapTokens' | 'triggerTokens' | 'targetTokens' | 'summaryBudgetTokens' | 'memoryBudgetTokens'
  >,
  fixedTokens: number,
  calibration = 1,
): number {
  const budgets = settings.summaryBudgetTokens + settings.memoryBudgetTokens;
  const room = settings.triggerTokens - fixedTokens - budgets;
  const serverCap = Math.min(settings.tailCapTokens, Math.floor(room / 2), settings.targetTokens - fixedTokens - budgets);
  return Math.max(0, Math.floor(serverCap / sanitizeCalibration(calibration)));
}
