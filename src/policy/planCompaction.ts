/**
 * The compaction that would run now (DESIGN §5): the pinned entries, the tail under its cap, whether
 * the older region is pruned or summarized, and where the result is projected to land and why not
 * when it falls short. `decide` chooses between nothing, a compaction and a truncation; this works
 * out what the compaction would be, with or without the summarizer.
 */
import { appendOriginals } from './accounting';
import { growthPerStep, tokensFrom, TYPICAL_CACHE_PRICES } from './cacheCost';
import { isHalfOpen } from './breaker';
import {
  CompactionRequest,
  CompactionStrategy,
  ShortfallReason,
  type CacheEconomics,
  type CompactDecision,
  type DecideInput,
} from './decision';
import { calibratedTokens, projectTokens, rawContextTokens, type ContextEstimate } from './estimate';
import { LedgerKind } from './ledger';
import { projectionOf } from './projectionBasis';
import { selectPrune, shouldSkipSummary } from './selectPrune';
import { pruneOrSummary } from './pruneOrSummary';
import { selectTail } from './selectTail';
import { toSeqRuns } from './seqRuns';
import { effectiveTailCap } from './thresholds';

/**
 * Our tokens of agentd's header line above a summary (`summaryMessageHeader`: ~30 with five-digit
 * seqs), rounded up so the projection errs towards a larger summary message.
 */
const SUMMARY_HEADER_TOKENS = 40;

/**
 * The compaction that would run now, or undefined when nothing is older than the tail and nothing
 * can be cut; `summaryAllowed` false plans pruning only (the breaker is open).
 */
export function planCompaction(input: DecideInput, estimate: ContextEstimate, summaryAllowed: boolean): CompactDecision | undefined {
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
