/**
 * The compaction circuit breaker (DESIGN §5): consecutive failed compactions open it and stop
 * auto-compaction; after a cool-down of steps it half-opens and lets one compaction try again
 * (success closes it; failure doubles the cool-down); any success closes it. Plain JSON, so it
 * survives continue-as-new. Pure.
 */
import { z } from 'zod';

/** Failure reasons kept for the warning: enough to show a pattern, few enough for one line. */
const RECENT_FAILURES_KEPT = 3;

export const BreakerStateSchema = z
  .object({
    /** Compactions that failed in a row (after their activity retries). */
    consecutiveFailures: z.number().int().nonnegative(),
    /** Auto-compaction is stopped (until `retryAtStep`); manual compaction still runs, and its success closes the breaker. */
    open: z.boolean(),
    /** Step at which the breaker opened. Absent in states from before the half-open breaker. */
    openedAtStep: z.number().int().nonnegative().optional(),
    /** From this step on, one auto-compaction is tried again (half-open). Absent: never (older states). */
    retryAtStep: z.number().int().nonnegative().optional(),
    /** The cool-down that set `retryAtStep`; doubles after each failed half-open retry. */
    coolDownSteps: z.number().int().positive().optional(),
    /** Short reasons of the newest failures, oldest first (at most RECENT_FAILURES_KEPT). */
    recentFailures: z.array(z.string()).optional(),
  })
  .strict();
export type BreakerState = z.infer<typeof BreakerStateSchema>;

export const CLOSED_BREAKER: BreakerState = Object.freeze({ consecutiveFailures: 0, open: false });

/** Where and how a failure happened, for the half-open schedule and the warning. */
export interface BreakerFailure {
  /** The session's step when the compaction failed. */
  readonly step: number;
  /** Cool-down before the first half-open retry (`breakerCoolDownSteps`). */
  readonly coolDownSteps: number;
  /** A short reason: `refusal`, `not_shorter`, `model unavailable`… */
  readonly reason: string;
}

/**
 * One more failed compaction; `threshold` in a row opens the breaker. A failure while it is open
 * (the half-open retry, or a manual compaction) doubles the cool-down. Claude Code's comment on its
 * own breaker: ~250K wasted summary calls a day before it existed. Without `failure` (older code
 * paths) the breaker opens for good, as it used to.
 */
export function recordFailure(state: BreakerState, threshold: number, failure?: BreakerFailure): BreakerState {
  const consecutiveFailures = state.consecutiveFailures + 1;
  if (!failure) return { ...state, consecutiveFailures, open: state.open || consecutiveFailures >= threshold };
  const recentFailures = [...(state.recentFailures ?? []), failure.reason].slice(-RECENT_FAILURES_KEPT);
  if (state.open) {
    const coolDownSteps = (state.coolDownSteps ?? failure.coolDownSteps) * 2;
    return { ...state, consecutiveFailures, recentFailures, coolDownSteps, retryAtStep: failure.step + coolDownSteps };
  }
  if (consecutiveFailures < threshold) return { consecutiveFailures, open: false, recentFailures };
  return {
    consecutiveFailures,
    open: true,
    openedAtStep: failure.step,
    coolDownSteps: failure.coolDownSteps,
    retryAtStep: failure.step + failure.coolDownSteps,
    recentFailures,
  };
}

/** A successful compaction (auto, half-open or manual) resets the count and closes the breaker. */
export function recordSuccess(state: BreakerState): BreakerState {
  return state.consecutiveFailures === 0 && !state.open ? state : { ...CLOSED_BREAKER };
}

/** The breaker is open but its cool-down is over: the next auto-compaction is the one retry. */
export function isHalfOpen(state: BreakerState, step: number | undefined): boolean {
  return state.open && step !== undefined && state.retryAtStep !== undefined && step >= state.retryAtStep;
}

/** Whether auto-compaction may run (with a summary) at `step`: closed, or half-open. */
export function allowsAutoCompaction(state: BreakerState, step?: number): boolean {
  return !state.open || isHalfOpen(state, step);
}

/**
 * The operator's one line for a breaker that is open, e.g. `breaker OPEN since step 7: 3 summaries
 * failed (refusal, refusal, not_shorter); running on pruning and truncation; next retry at step 27`.
 * Undefined while it is closed.
 */
export function breakerWarning(state: BreakerState): string | undefined {
  if (!state.open) return undefined;
  const since = state.openedAtStep === undefined ? '' : ` since step ${state.openedAtStep}`;
  const reasons = (state.recentFailures ?? []).length > 0 ? ` (${(state.recentFailures ?? []).join(', ')})` : '';
  const retry = state.retryAtStep === undefined ? '' : `; next retry at step ${state.retryAtStep}`;
  const count = state.consecutiveFailures;
  return `breaker OPEN${since}: ${count} ${count === 1 ? 'compaction' : 'compactions'} failed${reasons}; running on pruning and truncation${retry}`;
}
