/**
 * The compaction circuit breaker (DESIGN §5): consecutive failed compactions open it and stop
 * auto-compaction; any success closes it. Plain JSON, so it survives continue-as-new. Pure.
 */
import { z } from 'zod';

export const BreakerStateSchema = z
  .object({
    /** Compactions that failed in a row (after their activity retries). */
    consecutiveFailures: z.number().int().nonnegative(),
    /** Auto-compaction is stopped; manual compaction still runs, and its success closes the breaker. */
    open: z.boolean(),
  })
  .strict();
export type BreakerState = z.infer<typeof BreakerStateSchema>;

export const CLOSED_BREAKER: BreakerState = Object.freeze({ consecutiveFailures: 0, open: false });

/**
 * One more failed compaction; `threshold` in a row opens the breaker. Claude Code's comment on its
 * own breaker: ~250K wasted summary calls a day before it existed.
 */
export function recordFailure(state: BreakerState, threshold: number): BreakerState {
  const consecutiveFailures = state.consecutiveFailures + 1;
  return { consecutiveFailures, open: state.open || consecutiveFailures >= threshold };
}

/**
 * A successful compaction resets the count and closes the breaker. Auto-compaction never runs while
 * the breaker is open, so in practice only a manual compaction closes an open one — which is the point:
 * an operator who sees a stuck session can compact it by hand and let it carry on unattended.
 */
export function recordSuccess(state: BreakerState): BreakerState {
  return state.consecutiveFailures === 0 && !state.open ? state : { ...CLOSED_BREAKER };
}

/** Whether auto-compaction may run. */
export function allowsAutoCompaction(state: BreakerState): boolean {
  return !state.open;
}
