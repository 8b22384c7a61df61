/**
 * The compaction decision taken before every model call (DESIGN §3, §5): nothing, a compaction
 * (prune or summary) or an emergency truncation. Pure and deterministic — the workflow calls it in
 * the Temporal sandbox, and replay must give the same answer; all I/O is in activities.
 */
import { appendOriginals } from './accounting';
import {
  CompactionRequest,
  CompactionStrategy,
  NoneReason,
  ShortfallReason,
  TruncateWhy,
  TruncationShortfallReason,
  type CompactDecision,
  type DecideInput,
  type Decision,
  type NoneDecision,
  type ProjectionBasis,
} from './decision';
import { calibratedTokens, estimateContext, projectTokens, rawContextTokens, type ContextEstimate } from './estimate';
import { LedgerKind } from './ledger';
import { selectPrune, shouldSkipSummary } from './selectPrune';
import { selectTail } from './selectTail';
import { toSeqRuns } from './seqRuns';
import { effectiveTailCap, isAtTrigger, isOverHardLimit } from './thresholds';
import { selectTruncation } from './truncate';

export { applyCompaction, applyTruncation, type CompactionResults } from './applyCompaction';
export { verifyCompaction, VerifyFailure, type CompactionVerdict } from './verifyCompaction';
export * from './decision';

/**
 * Decides what to do before the next model call; always `none` when compaction is not `enabled`.
 * - `auto`: compacts only at the trigger, with auto on and the breaker closed; over the hard limit
 *   (window − minRoomTokens) when it may not compact, truncates instead of sending a doomed request.
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

  if (request === CompactionRequest.auto) {
    if (!settings.auto) {
      return overHardLimit
        ? truncation(input, estimate, TruncateWhy.autoOff, settings.hardLimitTokens)
        : none(NoneReason.autoOff, estimate);
    }
    if (!isAtTrigger(estimate.tokens, settings)) return none(NoneReason.underTrigger, estimate);
    if (input.breaker.open) {
      return overHardLimit
        ? truncation(input, estimate, TruncateWhy.breakerOpen, settings.hardLimitTokens)
        : none(NoneReason.breakerOpen, estimate);
    }
  }
  if (request === CompactionRequest.reactive && input.breaker.open) {
    return truncation(input, estimate, TruncateWhy.breakerOpen, reactiveGoal(input, estimate));
  }

  const compaction = planCompaction(input, estimate);
  if (compaction) return compaction;

  if (request === CompactionRequest.reactive) {
    return truncation(input, estimate, TruncateWhy.cannotCompact, reactiveGoal(input, estimate));
  }
  if (overHardLimit) return truncation(input, estimate, TruncateWhy.cannotCompact, settings.hardLimitTokens);
  return none(NoneReason.nothingToCompact, estimate);
}

/**
 * A truncation the workflow asks for directly, outside `decide`:
 * - `repeated_overflow`: the model overflowed again right after a reactive compaction (DESIGN §5
 *   "a second overflow truncates"); aims at the compaction target, since the server has twice shown
 *   that our estimate is low, and always drops something.
 * - any other `why` (typically `cannot_compact` after a compaction failed, "summarizer down"):
 *   only when the estimate is over the hard limit, and down to it; otherwise `none` / `within_limit`.
 */
export function decideTruncation(input: DecideInput, why: TruncateWhy): Decision {
  const estimate = estimateContext(input.ledger, input.estimateInput, input.settings.perMessageOverheadTokens);
  if (!input.settings.enabled) return none(NoneReason.disabled, estimate);
  if (why === TruncateWhy.repeatedOverflow) return truncation(input, estimate, why, reactiveGoal(input, estimate));
  if (!isOverHardLimit(estimate.tokens, input.settings)) return none(NoneReason.withinLimit, estimate);
  return truncation(input, estimate, why, input.settings.hardLimitTokens);
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

function truncation(input: DecideInput, estimate: ContextEstimate, why: TruncateWhy, goal: number): Decision {
  const plan = selectTruncation(
    input.ledger,
    goal,
    estimate,
    input.settings.perMessageOverheadTokens,
    input.estimateInput.toolSchemaTokens,
  );
  if (plan.drop.length === 0) return none(NoneReason.nothingToDrop, estimate);
  return {
    kind: 'truncate',
    reason: input.request,
    why,
    drop: plan.drop,
    droppedOriginals: plan.droppedOriginals,
    estimateBefore: estimate.tokens,
    expectedAfter: plan.expectedAfter,
    goal,
    ...(plan.fits
      ? {}
      : { shortfall: { reason: TruncationShortfallReason.onlyKeptLeft, overByTokens: plan.expectedAfter - goal } }),
    projection: projectionOf(input, estimate),
  };
}

/** The compaction that would run now, or undefined when nothing is older than the tail and nothing can be cut. */
function planCompaction(input: DecideInput, estimate: ContextEstimate): CompactDecision | undefined {
  const { ledger, settings } = input;
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
  const tailCapTokens = effectiveTailCap(settings, fixedServer + excessTokens, calibration);
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
  const skipSummary = shouldSkipSummary(
    {
      savedTokens: prune.savedTokens + tailCutSaved,
      transcriptTokens: rawTotal - toolSchemaTokens,
      estimateAfterPrune,
      triggerTokens: settings.triggerTokens,
    },
    settings,
  );

  let strategy: CompactionStrategy;
  let expectedAfter: number;
  if (olderHasOriginals && !skipSummary) {
    strategy = CompactionStrategy.summary;
    // The summary is at most its budget, and a summary longer than what it replaces is a failure;
    // the session memory beside it is at most its own budget.
    const summaryTokens = Math.min(settings.summaryBudgetTokens, calibratedTokens(olderRaw, calibration));
    expectedAfter =
      projectTokens(fixedRaw + tail.weight + 2 * overhead, calibration, excessTokens) + summaryTokens + settings.memoryBudgetTokens;
  } else if (prune.cuts.length + tail.cuts.length > 0) {
    strategy = CompactionStrategy.prune;
    expectedAfter = estimateAfterPrune;
  } else {
    return undefined;
  }

  const summary = strategy === CompactionStrategy.summary;
  const decision: CompactDecision = {
    kind: 'compact',
    reason: input.request,
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
    projection: projectionOf(input, estimate),
  };
  if (expectedAfter < settings.triggerTokens) return decision;

  let reason: ShortfallReason;
  if (fixedServer + (summary ? settings.summaryBudgetTokens + settings.memoryBudgetTokens : 0) >= settings.triggerTokens) {
    reason = ShortfallReason.pinnedOverBudget;
  } else if (!tail.fits) {
    reason = ShortfallReason.stepOverCap;
  } else if (!summary) {
    reason = ShortfallReason.olderKept;
  } else {
    reason = ShortfallReason.estimateExcess;
  }
  return { ...decision, shortfall: { reason, overByTokens: expectedAfter - settings.triggerTokens } };
}
