/**
 * What a compaction costs in a provider's prompt cache (DESIGN §5 "Prune only when it pays"). Every
 * request after the first repeats the one before it, so its prefix is billed at the cached price; a
 * compaction rewrites part of that prefix, and the next request pays the uncached price from the
 * first rewritten message on. Pruning old tool results in the middle saves tokens on every later
 * step but breaks the cache for everything after them; a summary breaks it for everything after the
 * pinned messages and costs a model call, but lands lower. Both are weighed per step over the steps
 * until the next compaction is due, in units of one uncached input token. Pure.
 */
import { LedgerKind, type LedgerEntry } from './ledger';
import type { Price } from './spend';

/** Prices relative to one uncached input token. */
export interface CachePrices {
  /** A cached input token: 0.1 at OpenAI and Anthropic reads, 0.25 at the simulator's nominal price. */
  readonly cachedInput: number;
  /** An output token: 4 to 8 at most hosted models. */
  readonly output: number;
}

/** Assumed when the session has no price with a cached rate: what hosted providers charge (issue figures use it). */
export const TYPICAL_CACHE_PRICES: CachePrices = Object.freeze({ cachedInput: 0.1, output: 4 });

/** Relative prices from a session's price table: the typical ones where it has no cached rate. */
export function cachePricesOf(price: Price | undefined): CachePrices {
  if (!price || price.cachedInputPerMillion === undefined || price.inputPerMillion <= 0) return TYPICAL_CACHE_PRICES;
  return { cachedInput: price.cachedInputPerMillion / price.inputPerMillion, output: price.outputPerMillion / price.inputPerMillion };
}

/** One way to compact, as the cost model sees it (server tokens). */
export interface CompactionCostInput {
  /** Context right after the compaction. */
  readonly afterTokens: number;
  /** Tokens of that context the next request cannot take from the cache (from the first rewritten message on). */
  readonly rewrittenTokens: number;
  /** Prompt tokens of model calls the compaction makes itself (a summary request), and the share of them cached. */
  readonly callPromptTokens: number;
  readonly callCachedShare: number;
  /** Output tokens those calls are expected to write. */
  readonly callOutputTokens: number;
}

/** How the session grows and where the next compaction starts. */
export interface CostHorizon {
  readonly triggerTokens: number;
  /** Tokens a step adds to the context, on average. */
  readonly growthPerStep: number;
}

/** What a compaction is expected to cost per step until the next one: its one-off cost spread, plus the cached context carried. */
export function costPerStep(plan: CompactionCostInput, horizon: CostHorizon, prices: CachePrices): number {
  const steps = stepsUntilTrigger(plan.afterTokens, horizon);
  const callInput = plan.callPromptTokens * (plan.callCachedShare * prices.cachedInput + (1 - plan.callCachedShare));
  const oneOff = callInput + plan.callOutputTokens * prices.output + plan.rewrittenTokens * (1 - prices.cachedInput);
  // From after to the trigger, the context carried by each request is on average halfway between.
  const carried = ((plan.afterTokens + horizon.triggerTokens) / 2) * prices.cachedInput;
  return oneOff / steps + carried;
}

/** Steps before a context of `afterTokens` reaches the trigger again (at least one). */
export function stepsUntilTrigger(afterTokens: number, horizon: CostHorizon): number {
  return Math.max(1, Math.floor((horizon.triggerTokens - afterTokens) / Math.max(1, horizon.growthPerStep)));
}

/** Steps the growth is averaged over: recent enough to follow the session, long enough to smooth one odd step. */
const GROWTH_STEPS = 8;

/**
 * Tokens per step of the newest original steps in the ledger (our tokens): what the context gains
 * each step. Summaries, memory and pinned entries were not added by a step and are left out.
 */
export function growthPerStep(ledger: readonly LedgerEntry[], perMessageOverhead: number): number {
  const bySteps = new Map<number, number>();
  for (const entry of ledger) {
    if (entry.pinned || entry.kind === LedgerKind.summary || entry.kind === LedgerKind.memory || entry.step === 0) continue;
    bySteps.set(entry.step, (bySteps.get(entry.step) ?? 0) + entry.tokens + perMessageOverhead);
  }
  const newest = [...bySteps.entries()].sort((a, b) => b[0] - a[0]).slice(0, GROWTH_STEPS);
  if (newest.length === 0) return 1;
  return Math.max(1, newest.reduce((total, [, tokens]) => total + tokens, 0) / newest.length);
}

/** Server tokens of the ledger from `firstSeq` on: what a rewrite starting there sends uncached. */
export function tokensFrom(ledger: readonly LedgerEntry[], firstSeq: number, perMessageOverhead: number): number {
  const start = ledger.findIndex((entry) => entry.seq === firstSeq);
  if (start < 0) return 0;
  return ledger.slice(start).reduce((total, entry) => total + entry.tokens + perMessageOverhead, 0);
}
