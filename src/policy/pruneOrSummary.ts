/**
 * The choice between pruning and a summary when both could run
 * (DESIGN §5 "Prune only when it pays"): pruning is taken only when it lands at the target by itself and costs less per step than
 * the summary, counting the prompt cache each one breaks. Pure.
 */
import { costPerStep, stepsUntilTrigger, type CachePrices, type CostHorizon } from './cacheCost';
import type { CacheEconomics } from './decision';

export interface PruneOrSummaryInput {
  /** Server tokens now, and the share of them the newest request already sent (the summary request repeats it). */
  readonly estimateTokens: number;
  readonly previousRequestTokens: number;
  /** Server tokens every compacted context keeps: pinned messages and tool schemas. */
  readonly fixedTokens: number;
  readonly targetTokens: number;
  /** After pruning alone, and the tokens from its first rewritten message on. */
  readonly afterPrune: number;
  readonly pruneRewrittenTokens: number;
  /** After the summary; undefined when no summary may run. */
  readonly afterSummary: number | undefined;
  /** What the summary is expected to write. */
  readonly summaryOutputTokens: number;
  /** The summary request repeats the previous request (settings `summaryRequest: 'continue'`). */
  readonly summaryContinues: boolean;
  readonly horizon: CostHorizon;
  readonly prices: CachePrices;
}

export interface PruneOrSummary {
  readonly strategy: 'prune' | 'summary';
  readonly economics: CacheEconomics;
}

/** The cheaper of the two per step, pruning only when it lands at the target on its own. */
export function pruneOrSummary(input: PruneOrSummaryInput): PruneOrSummary {
  const prune = {
    afterTokens: input.afterPrune,
    rewrittenTokens: input.pruneRewrittenTokens,
    callPromptTokens: 0,
    callCachedShare: 0,
    callOutputTokens: 0,
  };
  const prunePerStep = costPerStep(prune, input.horizon, input.prices);
  const pruneEconomics: CacheEconomics = {
    rewrittenTokens: input.pruneRewrittenTokens,
    savedTokens: Math.max(0, input.estimateTokens - input.afterPrune),
    stepsToNextCompaction: stepsUntilTrigger(input.afterPrune, input.horizon),
    costPerStep: round(prunePerStep),
  };
  if (input.afterSummary === undefined) return { strategy: 'prune', economics: pruneEconomics };

  const summary = {
    afterTokens: input.afterSummary,
    rewrittenTokens: Math.max(0, input.afterSummary - input.fixedTokens),
    callPromptTokens: input.estimateTokens,
    callCachedShare: (input.summaryContinues ? input.previousRequestTokens : input.fixedTokens) / Math.max(1, input.estimateTokens),
    callOutputTokens: input.summaryOutputTokens,
  };
  const summaryPerStep = costPerStep(summary, input.horizon, input.prices);
  const compared = { pruneCostPerStep: round(prunePerStep), summaryCostPerStep: round(summaryPerStep) };
  if (input.afterPrune <= input.targetTokens && prunePerStep <= summaryPerStep) {
    return { strategy: 'prune', economics: { ...pruneEconomics, ...compared } };
  }
  return {
    strategy: 'summary',
    economics: {
      rewrittenTokens: summary.rewrittenTokens,
      savedTokens: Math.max(0, input.estimateTokens - input.afterSummary),
      stepsToNextCompaction: stepsUntilTrigger(input.afterSummary, input.horizon),
      costPerStep: round(summaryPerStep),
      ...compared,
    },
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
