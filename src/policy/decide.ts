/**
 * The compaction decision taken before every model call (DESIGN §3, §5): nothing, a compaction
 * (prune or summary) or an emergency truncation. Pure and deterministic — the workflow calls it in
 * the Temporal sandbox, and replay must give the same answer; all I/O is in activities.
 */
import { allowsAutoCompaction, isHalfOpen } from './breaker';
import {
  CompactionRequest,
  NoneReason,
  TruncationCause,
  TruncationShortfallReason,
  type DecideInput,
  type Decision,
  type NoneDecision,
} from './decision';
import { estimateContext, type ContextEstimate } from './estimate';
import { planCompaction } from './planCompaction';
import { projectionOf } from './projectionBasis';
import { isAtTrigger, isOverHardLimit } from './thresholds';
import { selectTruncation } from './truncate';

/**
 * Decides what to do before the next model call; always `none` when compaction is not `enabled`.
 * - `auto`: compacts only at the trigger, with auto on and the breaker closed (or, with `graceful`,
 *   half-open at `step`; with `landWithRoom` the half-open retry runs at its step even under the
 *   trigger); over the hard limit (window − minRoomTokens) when it may not compact,
 *   truncates instead of sending a doomed request. With `graceful` and the breaker open it prunes,
 *   else truncates down to the target, as soon as the trigger is reached.
 * - `manual`: compacts even under the trigger and with the breaker open, when something is older
 *   than the tail or can be cut; otherwise `none` with a reason.
 * - `reactive`: the server rejected the last request as too long, so our estimate was low: compacts
 *   whatever the estimate says; with the breaker open or nothing to compact, truncates.
 */
export function decide(input: DecideInput): Decision {
  const { settings, request } = input;
  const estimate = estimateContext(input.ledger, input.estimateInput, settings.perMessageOverheadTokens);
  if (!settings.enabled) return none(NoneReason.disabled, estimate);
  const overHardLimit = isOverHardLimit(estimate.tokens, settings);
  // Emergency truncation aims at the compaction target, so it does not have to run again at once.
  const truncationGoal = input.graceful === true ? settings.targetTokens : settings.hardLimitTokens;

  if (request === CompactionRequest.auto) {
    if (!settings.auto) {
      return overHardLimit
        ? truncation(input, estimate, TruncationCause.autoOff, settings.hardLimitTokens)
        : none(NoneReason.autoOff, estimate);
    }
    if (!isAtTrigger(estimate.tokens, settings)) {
      // The breaker's one retry is due at its step, not at the next trigger, which may be far off.
      const retryDue = input.landWithRoom === true && isHalfOpen(input.breaker, input.step);
      return (retryDue ? planCompaction(input, estimate, true) : undefined) ?? none(NoneReason.underTrigger, estimate);
    }
    const halfOpenStep = input.graceful === true || input.landWithRoom === true ? input.step : undefined;
    if (input.graceful === true && !allowsAutoCompaction(input.breaker, halfOpenStep)) return withoutSummarizer(input, estimate);
    if (!allowsAutoCompaction(input.breaker, halfOpenStep)) {
      return overHardLimit
        ? truncation(input, estimate, TruncationCause.breakerOpen, settings.hardLimitTokens)
        : none(NoneReason.breakerOpen, estimate);
    }
  }
  if (request === CompactionRequest.reactive && input.breaker.open) {
    return truncation(input, estimate, TruncationCause.breakerOpen, reactiveGoal(input, estimate));
  }

  const compaction = planCompaction(input, estimate, true);
  if (compaction) return compaction;

  if (request === CompactionRequest.reactive) {
    return truncation(input, estimate, TruncationCause.cannotCompact, reactiveGoal(input, estimate));
  }
  if (overHardLimit) return truncation(input, estimate, TruncationCause.cannotCompact, truncationGoal);
  return none(NoneReason.nothingToCompact, estimate);
}

/**
 * At the trigger with the breaker open (DESIGN §5 "Degrading gracefully"): model-free pruning when it
 * lands where a compaction must (at the target under "Land with room", else under the trigger),
 * else the oldest steps are dropped down to the target, so the context stays under the trigger
 * instead of riding at the window's edge. A prune that would fall short is not tried first: it would
 * rewrite the context, fail its verdict and be followed by the truncation anyway.
 */
function withoutSummarizer(input: DecideInput, estimate: ContextEstimate): Decision {
  const pruned = planCompaction(input, estimate, false);
  if (pruned && pruned.shortfall === undefined) return pruned;
  const truncated = truncation(input, estimate, TruncationCause.breakerOpen, input.settings.targetTokens);
  return truncated.kind === 'none' && pruned ? pruned : truncated;
}

/**
 * A truncation the workflow asks for directly, outside `decide`:
 * - `repeated_overflow`: the model overflowed again right after a reactive compaction (DESIGN §5
 *   "a second overflow truncates"); aims at the compaction target, since the server has twice shown
 *   that our estimate is low, and always drops something. So does `reactive_compaction_failed`: the
 *   server refused the context, and resending it unchanged is a known-oversize request.
 * - any other `cause` (typically `cannot_compact` after a compaction failed, "summarizer down"):
 *   only when the estimate is over the hard limit, and down to it; otherwise `none` / `within_limit`.
 */
export function decideTruncation(input: DecideInput, cause: TruncationCause): Decision {
  const estimate = estimateContext(input.ledger, input.estimateInput, input.settings.perMessageOverheadTokens);
  if (!input.settings.enabled) return none(NoneReason.disabled, estimate);
  if (cause === TruncationCause.repeatedOverflow || cause === TruncationCause.reactiveCompactionFailed) {
    return truncation(input, estimate, cause, reactiveGoal(input, estimate));
  }
  if (input.graceful === true) {
    // After a failed compaction: at the trigger, down to the target (DESIGN §5 "Degrading gracefully").
    if (!isAtTrigger(estimate.tokens, input.settings)) return none(NoneReason.withinLimit, estimate);
    return truncation(input, estimate, cause, input.settings.targetTokens);
  }
  if (!isOverHardLimit(estimate.tokens, input.settings)) return none(NoneReason.withinLimit, estimate);
  return truncation(input, estimate, cause, input.settings.hardLimitTokens);
}

function none(reason: NoneReason, estimate: ContextEstimate): NoneDecision {
  return { kind: 'none', reason, estimate: estimate.tokens };
}

/** After an overflow the server disagrees with our estimate: aim at the target and drop at least something. */
function reactiveGoal(input: DecideInput, estimate: ContextEstimate): number {
  return Math.min(input.settings.targetTokens, estimate.tokens - 1);
}

function truncation(input: DecideInput, estimate: ContextEstimate, cause: TruncationCause, aim: number): Decision {
  // The memory stored after the truncation (its text and its message framing) must fit under the
  // same aim as the steps left.
  const memoryBudgetTokens = input.memoryAtTruncation === true ? input.settings.memoryBudgetTokens : 0;
  const memoryRoom = memoryBudgetTokens > 0 ? memoryBudgetTokens + Math.ceil(input.settings.perMessageOverheadTokens * estimate.calibration) : 0;
  const goal = Math.max(0, aim - memoryRoom);
  const plan = selectTruncation(
    input.ledger,
    goal,
    estimate,
    input.settings.perMessageOverheadTokens,
    input.estimateInput.toolSchemaTokens,
    { keep: input.truncationKeepsRecords === true, memoryReplaced: memoryBudgetTokens > 0 },
  );
  if (plan.drop.length === 0) return none(NoneReason.nothingToDrop, estimate);
  return {
    kind: 'truncate',
    requestedBy: input.request,
    cause,
    drop: plan.drop,
    droppedOriginals: plan.droppedOriginals,
    estimateBefore: estimate.tokens,
    expectedAfter: plan.expectedAfter,
    goal,
    ...(plan.fits
      ? {}
      : { shortfall: { reason: TruncationShortfallReason.onlyKeptLeft, overByTokens: plan.expectedAfter - goal } }),
    ...(memoryBudgetTokens > 0 ? { memoryBudgetTokens } : {}),
    projection: projectionOf(input, estimate),
  };
}
