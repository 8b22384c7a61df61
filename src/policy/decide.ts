/**
 * The compaction decision taken before every model call (DESIGN §3, §5): nothing, a compaction
 * (prune or summary) or an emergency truncation. Pure and deterministic — the workflow calls it in
 * the Temporal sandbox, and replay must give the same answer; all I/O is in activities.
 */
import { appendOriginals } from './accounting';
import { growthPerStep, tokensFrom, TYPICAL_CACHE_PRICES } from './cacheCost';
import { allowsAutoCompaction, isHalfOpen } from './breaker';
import {
  CompactionRequest,
  CompactionStrategy,
  NoneReason,
  ShortfallReason,
  TruncationCause,
  TruncationShortfallReason,
  type CacheEconomics,
  type CompactDecision,
  type DecideInput,
  type Decision,
  type NoneDecision,
  type ProjectionBasis,
} from './decision';
import { calibratedTokens, estimateContext, projectTokens, rawContextTokens, type ContextEstimate } from './estimate';
import { LedgerKind } from './ledger';
import { selectPrune, shouldSkipSummary } from './selectPrune';
import { pruneOrSummary } from './pruneOrSummary';
import { selectTail } from './selectTail';
import { toSeqRuns } from './seqRuns';
import { effectiveTailCap, isAtTrigger, isOverHardLimit } from './thresholds';
import { selectTruncation } from './truncate';

/**
 * Our tokens of agentd's header line above a summary (`summaryMessageHeader`: ~30 with five-digit
 * seqs), rounded up so the projection errs towards a larger summary message.
 */
const SUMMARY_HEADER_TOKENS = 40;

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

function projectionOf(input: DecideInput, estimate: ContextEstimate): ProjectionBasis {
  return {
    calibration: estimate.calibration,
    perMessageOverheadTokens: input.settings.perMessageOverheadTokens,
    toolSchemaTokens: input.estimateInput.toolSchemaTokens,
    excessTokens: estimate.excessTokens,
  };
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

/**
 * The compaction that would run now, or undefined when nothing is older than the tail and nothing
 * can be cut; `summaryAllowed` false plans pruning only (the breaker is open).
 */
function planCompaction(input: DecideInput, estimate: ContextEstimate, summaryAllowed: boolean): CompactDecision | undefined {
  const { ledger, settings } = input;
  const graceful = input.graceful === true;
  const landWithRoom = input.landWithRoom === true;
  const mustLand = landWithRoom && settings.mustLandAtTarget;
  const overhead = settings.perMessageOverheadTokens;
  const toolSchemaTokens = input.estimateInput.toolSchemaTokens;
  const { calibration, excessTokens } = estimate;

  const pinned: number[] = [];
  let fixedRaw = toolSchemaTokens;
  for (const entry of ledger) {
    if (!entry.pinned) continue;
    pinned.push(entry.seq);
    fixedRaw += entry.tokens + overhead;
  }
  const fixedServer = calibratedTokens(fixedRaw, calibration);
  // Landing at the target leaves no slack: the summary and memory messages' framing must fit too.
  const framing = mustLand ? calibratedTokens(2 * overhead + (graceful ? SUMMARY_HEADER_TOKENS : 0), calibration) : 0;
  const tailCapTokens = effectiveTailCap(settings, fixedServer + excessTokens + framing, calibration);
  const tail = selectTail(ledger, tailCapTokens, settings, { cutToolCalls: input.cutToolCalls ?? true });

  // The older region: every unpinned entry before the tail, a previous summary included. A previous
  // session memory is not summarized: the summary compaction builds a fresh one in its place.
  const summarizeSeqs: number[] = [];
  const memorySeqs: number[] = [];
  const covers: number[] = [];
  let olderRaw = 0;
  let olderHasOriginals = false;
  for (let i = 0; i < tail.start; i++) {
    const entry = ledger[i]!;
    if (entry.pinned) continue;
    if (entry.kind === LedgerKind.memory) {
      memorySeqs.push(entry.seq);
      continue;
    }
    summarizeSeqs.push(entry.seq);
    appendOriginals(covers, entry);
    olderRaw += entry.tokens + overhead;
    if (entry.kind !== LedgerKind.summary) olderHasOriginals = true;
  }

  const prune = selectPrune(ledger, 0, tail.start, settings);
  let tailCutSaved = 0;
  for (const cut of tail.cuts) tailCutSaved += cut.tokensBefore - cut.expectedTokens;
  const rawTotal = rawContextTokens(ledger, overhead, toolSchemaTokens);
  const estimateAfterPrune = projectTokens(rawTotal - prune.savedTokens - tailCutSaved, calibration, excessTokens);
  // The summary is at most its budget, and a summary longer than what it replaces is a failure;
  // the session memory beside it is at most its own budget; its message carries agentd's header line.
  const summaryTokens = Math.min(settings.summaryBudgetTokens, calibratedTokens(olderRaw, calibration));
  const header = graceful ? SUMMARY_HEADER_TOKENS : 0;
  let afterSummary: number | undefined =
    summaryAllowed && olderHasOriginals
      ? projectTokens(fixedRaw + tail.weight + 2 * overhead + header, calibration, excessTokens) + summaryTokens + settings.memoryBudgetTokens
      : undefined;
  // The breaker's half-open retry is there to try the summarizer again, not to save a step's tokens.
  const probe = landWithRoom && input.request === CompactionRequest.auto && isHalfOpen(input.breaker, input.step);
  // A summary that cannot shrink the context would only be billed and rejected; the probe's
  // projection counts full budgets, so it runs anyway and the verdict tells.
  if (graceful && !probe && afterSummary !== undefined && afterSummary >= estimate.tokens) afterSummary = undefined;
  const canPrune = prune.cuts.length + tail.cuts.length > 0;

  // Hysteresis: pruning replaces the summary only when it gets as far as a summary would.
  const pruneIsEnough = shouldSkipSummary(
    {
      savedTokens: prune.savedTokens + tailCutSaved,
      transcriptTokens: rawTotal - toolSchemaTokens,
      estimateAfterPrune,
      triggerTokens: graceful ? settings.targetTokens : settings.triggerTokens,
    },
    settings,
  );
  let choice: { strategy: CompactionStrategy; economics?: CacheEconomics } | undefined;
  if (landWithRoom && settings.pruneOnlyWhenItPays && canPrune && !probe) {
    const rewrittenFrom = Math.min(...[...prune.cuts, ...tail.cuts].map((cut) => cut.seq));
    choice = pruneOrSummary({
      estimateTokens: estimate.tokens,
      previousRequestTokens: input.estimateInput.anchor?.promptTokens ?? fixedServer,
      fixedTokens: fixedServer,
      targetTokens: settings.targetTokens,
      afterPrune: estimateAfterPrune,
      pruneRewrittenTokens: calibratedTokens(Math.max(0, tokensFrom(ledger, rewrittenFrom, overhead) - prune.savedTokens - tailCutSaved), calibration),
      afterSummary,
      summaryOutputTokens: summaryTokens,
      summaryContinues: settings.summaryRequest === 'continue',
      horizon: { triggerTokens: settings.triggerTokens, growthPerStep: calibratedTokens(growthPerStep(ledger, overhead), calibration) },
      prices: input.prices ?? TYPICAL_CACHE_PRICES,
    });
  } else if (afterSummary !== undefined && (probe || !pruneIsEnough)) {
    choice = { strategy: CompactionStrategy.summary };
  } else if (canPrune) {
    choice = { strategy: CompactionStrategy.prune };
  }
  if (!choice) return undefined;
  const { strategy, economics } = choice;
  const expectedAfter = strategy === CompactionStrategy.summary ? afterSummary! : estimateAfterPrune;

  const summary = strategy === CompactionStrategy.summary;
  const decision: CompactDecision = {
    kind: 'compact',
    requestedBy: input.request,
    strategy,
    pinned,
    prune: summary ? [] : prune.cuts,
    summarize: summary ? toSeqRuns(summarizeSeqs) : [],
    replacedMemory: summary ? toSeqRuns(memorySeqs) : [],
    memoryBudgetTokens: summary ? settings.memoryBudgetTokens : 0,
    covers: summary ? toSeqRuns(covers.sort((a, b) => a - b)) : [],
    summaryBudgetTokens: settings.summaryBudgetTokens,
    tail: tail.seqs,
    tailCuts: tail.cuts,
    tailCapTokens,
    estimateBefore: estimate.tokens,
    expectedAfter,
    target: settings.targetTokens,
    trigger: settings.triggerTokens,
    ...(mustLand ? { landAt: settings.targetTokens } : {}),
    ...(economics ? { economics } : {}),
    projection: projectionOf(input, estimate),
  };
  // Where the result must land: at the target under "Land with room", else anywhere under the trigger.
  const mark = mustLand ? settings.targetTokens : settings.triggerTokens;
  const lands = (tokens: number): boolean => (mustLand ? tokens <= mark : tokens < mark);
  if (lands(expectedAfter)) return decision;

  let reason: ShortfallReason;
  if (!lands(fixedServer + (summary ? settings.summaryBudgetTokens + settings.memoryBudgetTokens : 0))) {
    reason = ShortfallReason.pinnedOverBudget;
  } else if (!tail.fits) {
    reason = ShortfallReason.stepOverCap;
  } else if (!summary) {
    reason = ShortfallReason.olderKept;
  } else {
    reason = ShortfallReason.estimateExcess;
  }
  return { ...decision, shortfall: { reason, overByTokens: expectedAfter - mark } };
}
