/**
 * Token estimate of the live context (DESIGN §4): usage-anchored when the server measured the last
 * call, else the ledger sum plus fixed overheads; both corrected by a smoothed calibration ratio.
 * Pure: the counts come from activities, the workflow only adds numbers.
 */
import type { LedgerEntry } from './ledger';

/** What the server reported for the last model call, and where in the ledger that call ended. */
export interface UsageAnchor {
  /** Prompt tokens the server counted for the last call (tool schemas included). */
  readonly promptTokens: number;
  /** Completion tokens of that call: the reply, which is now in the ledger. */
  readonly completionTokens: number;
  /**
   * Seq of the reply that call produced: everything up to it was measured. A seq rather than a
   * ledger length because compaction reorders and shortens the ledger; a seq no longer in the
   * ledger means the anchor is stale, and the estimate falls back to the ledger sum.
   */
  readonly lastSeq: number;
}

/** What the estimate needs besides the ledger. */
export interface EstimateInput {
  /** Usage of the last call; cleared after a compaction (it describes a context that no longer exists). */
  readonly anchor?: UsageAnchor;
  /** Server count / our count, from `calibrate`. @default 1 */
  readonly calibration?: number;
  /** Tokens the tool definitions add to every request (our tokenizer's count). */
  readonly toolSchemaTokens: number;
}

/** The estimate of the next prompt, with the parts projections need. */
export interface ContextEstimate {
  /** Best estimate of the next prompt in server tokens: anchored when possible. */
  readonly tokens: number;
  /** Calibrated ledger sum (entries + per-message overhead + tool schemas): the estimate without an anchor. */
  readonly ledgerTokens: number;
  /** Whether `tokens` is anchored on a server measurement. */
  readonly anchored: boolean;
  /**
   * How far the server's measure exceeds our calibrated sum (never negative). Projections after a
   * compaction carry it, so a known undercount is never forgotten just because the context changed.
   */
  readonly excessTokens: number;
  /** The calibration ratio used (sanitized). */
  readonly calibration: number;
}

/** Calibration ratios outside this range mean a broken count, not a different tokenizer. */
export const CALIBRATION_RANGE = Object.freeze({ min: 0.5, max: 2 });
/** Weight of the newest measurement in the smoothed ratio: fast enough to follow, slow enough to ignore one odd call. */
const CALIBRATION_SMOOTHING = 0.3;

/** What one entry costs in a prompt, in our tokens: content plus the per-message framing. */
function entryWeight(entry: Pick<LedgerEntry, 'tokens'>, perMessageOverheadTokens: number): number {
  return entry.tokens + perMessageOverheadTokens;
}

/** Our (uncalibrated) count of a whole prompt made of `entries` plus the tool schemas. */
export function rawContextTokens(
  entries: readonly LedgerEntry[],
  perMessageOverheadTokens: number,
  toolSchemaTokens: number,
): number {
  let total = toolSchemaTokens;
  for (const entry of entries) total += entry.tokens + perMessageOverheadTokens;
  return total;
}

/** Our count converted to server tokens, rounded up (an estimate that errs, errs towards compacting). */
export function calibratedTokens(rawTokens: number, calibration: number): number {
  return Math.ceil(rawTokens * sanitizeCalibration(calibration));
}

/**
 * The estimate after a change of the context: the calibrated raw count plus the server excess seen
 * before the change. Used for every `expectedAfter`, so decisions and events agree.
 */
export function projectTokens(rawTokens: number, calibration: number, excessTokens: number): number {
  return calibratedTokens(rawTokens, calibration) + excessTokens;
}

/** A usable ratio: non-finite or non-positive input means "no information", i.e. 1. */
export function sanitizeCalibration(ratio: number | undefined): number {
  if (ratio === undefined || !Number.isFinite(ratio) || ratio <= 0) return 1;
  return Math.min(CALIBRATION_RANGE.max, Math.max(CALIBRATION_RANGE.min, ratio));
}

/**
 * New calibration ratio after a call the server measured: an exponential moving average of
 * server/ours, clamped to `CALIBRATION_RANGE`. Garbage in (zero or non-finite counts) leaves the
 * previous ratio unchanged rather than poisoning every later estimate.
 */
export function calibrate(previousRatio: number, serverCount: number, ourCount: number): number {
  const previous = sanitizeCalibration(previousRatio);
  if (!Number.isFinite(serverCount) || !Number.isFinite(ourCount) || serverCount <= 0 || ourCount <= 0) return previous;
  const sample = sanitizeCalibration(serverCount / ourCount);
  return sanitizeCalibration(previous + CALIBRATION_SMOOTHING * (sample - previous));
}

/** Estimates the next prompt of `ledger`. */
export function estimateContext(
  ledger: readonly LedgerEntry[],
  input: EstimateInput,
  perMessageOverheadTokens: number,
): ContextEstimate {
  const calibration = sanitizeCalibration(input.calibration);
  const ledgerTokens = calibratedTokens(
    rawContextTokens(ledger, perMessageOverheadTokens, input.toolSchemaTokens),
    calibration,
  );
  const anchorIndex = input.anchor ? lastIndexOfSeq(ledger, input.anchor.lastSeq) : -1;
  if (!input.anchor || anchorIndex < 0) {
    return { tokens: ledgerTokens, ledgerTokens, anchored: false, excessTokens: 0, calibration };
  }
  // Entries after the anchor were never measured by the server: add our calibrated counts.
  let since = 0;
  for (let i = anchorIndex + 1; i < ledger.length; i++) since += entryWeight(ledger[i]!, perMessageOverheadTokens);
  const tokens = input.anchor.promptTokens + input.anchor.completionTokens + calibratedTokens(since, calibration);
  return { tokens, ledgerTokens, anchored: true, excessTokens: Math.max(0, tokens - ledgerTokens), calibration };
}

/** Searches from the end: the anchor is almost always the newest assistant message. */
function lastIndexOfSeq(ledger: readonly LedgerEntry[], seq: number): number {
  for (let i = ledger.length - 1; i >= 0; i--) if (ledger[i]!.seq === seq) return i;
  return -1;
}
