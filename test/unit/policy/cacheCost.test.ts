/**
 * The prompt-cache cost model (cacheCost.ts) and the choice it drives between pruning and a summary
 * (pruneOrSummary.ts), on hand-computed figures: trigger 100 000, a step adds 1 000, a summary lands
 * at 30 000 from a 100 000-token context whose previous request (98 000) it repeats.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  cachePricesOf,
  costPerStep,
  growthPerStep,
  stepsUntilTrigger,
  tokensFrom,
  TYPICAL_CACHE_PRICES,
  type CachePrices,
  type CostHorizon,
} from '../../../src/policy/cacheCost';
import type { LedgerEntry } from '../../../src/policy/ledger';
import { pruneOrSummary, type PruneOrSummaryInput } from '../../../src/policy/pruneOrSummary';
import { LedgerBuilder } from './builders';

const HORIZON: CostHorizon = { triggerTokens: 100_000, growthPerStep: 1_000 };
const NO_DISCOUNT: CachePrices = { cachedInput: 1, output: 4 };

/** Costs are sums of products of decimal fractions: equal up to float rounding. */
function assertClose(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-6, `${actual} is not ${expected}`);
}

/** Coherent random inputs: pinned ≤ summary landing ≤ estimate, the prune between the summary's landing and the estimate or below it. */
const choiceArb: fc.Arbitrary<PruneOrSummaryInput> = fc
  .record({
    trigger: fc.integer({ min: 6_000, max: 1_000_000 }),
    targetShare: fc.double({ min: 0.3, max: 0.95, noNaN: true }),
    over: fc.double({ min: 1, max: 1.3, noNaN: true }),
    fixedShare: fc.double({ min: 0.01, max: 0.3, noNaN: true }),
    summaryShare: fc.double({ min: 0.05, max: 0.9, noNaN: true }),
    pruneShare: fc.double({ min: 0.05, max: 1, noNaN: true }),
    rewrittenShare: fc.double({ min: 0, max: 1, noNaN: true }),
    previousShare: fc.double({ min: 0, max: 1, noNaN: true }),
    outputShare: fc.double({ min: 0, max: 0.2, noNaN: true }),
    growth: fc.integer({ min: 1, max: 20_000 }),
    continues: fc.boolean(),
    withSummary: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    cachedInput: fc.double({ min: 0.05, max: 1, noNaN: true }),
    output: fc.double({ min: 1, max: 8, noNaN: true }),
  })
  .map((r) => {
    const estimateTokens = Math.floor(r.trigger * r.over);
    const fixedTokens = Math.floor(estimateTokens * r.fixedShare);
    const afterSummary = fixedTokens + Math.floor((estimateTokens - fixedTokens) * r.summaryShare);
    const afterPrune = fixedTokens + Math.floor((estimateTokens - fixedTokens) * r.pruneShare);
    return {
      estimateTokens,
      previousRequestTokens: Math.floor(estimateTokens * r.previousShare),
      fixedTokens,
      targetTokens: Math.floor(r.trigger * r.targetShare),
      afterPrune,
      pruneRewrittenTokens: Math.floor((afterPrune - fixedTokens) * r.rewrittenShare),
      afterSummary: r.withSummary ? afterSummary : undefined,
      summaryOutputTokens: Math.floor((afterSummary - fixedTokens) * r.outputShare),
      summaryContinues: r.continues,
      horizon: { triggerTokens: r.trigger, growthPerStep: r.growth },
      prices: { cachedInput: r.cachedInput, output: r.output },
    };
  });


describe('costPerStep', () => {
  test('a prune: the rewritten suffix re-billed once (at the uncached minus cached price), spread over its steps, plus the context carried', () => {
    const prune = { afterTokens: 50_000, rewrittenTokens: 10_000, callPromptTokens: 0, callCachedShare: 0, callOutputTokens: 0 };
    // 50 steps to the trigger; 10 000 × 0.9 / 50 = 180; carried (50 000 + 100 000) / 2 × 0.1 = 7 500.
    assertClose(costPerStep(prune, HORIZON, TYPICAL_CACHE_PRICES), 7_680);
  });

  test('a summary: its call (cached share at the cached price), its output and its rewrite, spread over its steps', () => {
    const summary = { afterTokens: 40_000, rewrittenTokens: 30_000, callPromptTokens: 100_000, callCachedShare: 0.9, callOutputTokens: 5_000 };
    // 60 steps; call 100 000 × (0.9 × 0.1 + 0.1) = 19 000, output 5 000 × 4 = 20 000, rewrite 30 000 × 0.9 = 27 000:
    // 66 000 / 60 = 1 100; carried (40 000 + 100 000) / 2 × 0.1 = 7 000.
    assertClose(costPerStep(summary, HORIZON, TYPICAL_CACHE_PRICES), 8_100);
  });

  test('without a cache discount a rewrite costs nothing extra: only the carried context and the call count', () => {
    const prune = { afterTokens: 50_000, rewrittenTokens: 45_000, callPromptTokens: 0, callCachedShare: 0, callOutputTokens: 0 };
    assertClose(costPerStep(prune, HORIZON, NO_DISCOUNT), 75_000);
  });
});

describe('stepsUntilTrigger', () => {
  test('the room left over the growth per step, rounded down', () => {
    assert.equal(stepsUntilTrigger(50_000, HORIZON), 50);
    assert.equal(stepsUntilTrigger(50_500, HORIZON), 49);
  });

  test('at least one step, at or over the trigger, and with no growth measured', () => {
    assert.equal(stepsUntilTrigger(99_500, HORIZON), 1);
    assert.equal(stepsUntilTrigger(120_000, HORIZON), 1);
    assert.equal(stepsUntilTrigger(99_990, { triggerTokens: 100_000, growthPerStep: 0 }), 10);
  });
});

describe('growthPerStep', () => {
  test('the mean of the newest eight steps, with the per-message overhead', () => {
    // Two early steps of 1000-token results, then eight of 200: 60 + 4 + 200 + 4 = 268 each.
    const ledger = LedgerBuilder.session().steps(2, [1_000]).steps(8, [200]).build();
    assert.equal(growthPerStep(ledger, 4), 268);
  });

  test('pinned entries, summaries, memory and step-0 messages were not added by a step and are left out', () => {
    const steps = LedgerBuilder.session(5_000, 5_000).steps(3, [200]).build();
    const summary: LedgerEntry = { seq: 100, role: 'user', tokens: 9_000, chars: 36_000, turn: 1, step: 3, kind: 'summary', covers: [[2, 3]] };
    const memory: LedgerEntry = { seq: 101, role: 'user', tokens: 9_000, chars: 36_000, turn: 1, step: 2, kind: 'memory' };
    const user: LedgerEntry = { seq: 102, role: 'user', tokens: 9_000, chars: 36_000, turn: 2, step: 0 };
    assert.equal(growthPerStep([...steps, summary, memory, user], 4), 268);
  });

  test('at least one token a step, also for a ledger without steps', () => {
    assert.equal(growthPerStep(LedgerBuilder.session().build(), 4), 1);
    assert.equal(growthPerStep([], 4), 1);
  });
});

describe('tokensFrom', () => {
  // seqs 0 system 500, 1 task 200, then steps of 2 entries: assistant 60 + tool 1000.
  const ledger = LedgerBuilder.session().steps(3, [1_000]).build();

  test('tokens and per-message overhead from the given seq to the end', () => {
    assert.equal(tokensFrom(ledger, 0, 4), 504 + 204 + 3 * 1_068);
    assert.equal(tokensFrom(ledger, 5, 4), 1_004 + 1_068);
    assert.equal(tokensFrom(ledger, 7, 0), 1_000);
  });

  test('a seq not in the ledger rewrites nothing', () => {
    assert.equal(tokensFrom(ledger, 99, 4), 0);
  });
});

describe('cachePricesOf', () => {
  test('relative to the uncached input price', () => {
    assert.deepEqual(cachePricesOf({ inputPerMillion: 2.5, outputPerMillion: 10, cachedInputPerMillion: 1.25 }), { cachedInput: 0.5, output: 4 });
    assert.deepEqual(cachePricesOf({ inputPerMillion: 1, outputPerMillion: 8, cachedInputPerMillion: 0.25 }), { cachedInput: 0.25, output: 8 });
  });

  test('the typical prices without a price, without a cached rate, or with a free input', () => {
    assert.deepEqual(TYPICAL_CACHE_PRICES, { cachedInput: 0.1, output: 4 });
    assert.equal(cachePricesOf(undefined), TYPICAL_CACHE_PRICES);
    assert.equal(cachePricesOf({ inputPerMillion: 2, outputPerMillion: 8 }), TYPICAL_CACHE_PRICES);
    assert.equal(cachePricesOf({ inputPerMillion: 0, outputPerMillion: 0, cachedInputPerMillion: 0 }), TYPICAL_CACHE_PRICES);
  });
});

describe('pruneOrSummary', () => {
  /** A 100 000-token context at the trigger whose summary would land at 30 000 (5 000 pinned and schemas). */
  const base: PruneOrSummaryInput = {
    estimateTokens: 100_000,
    previousRequestTokens: 98_000,
    fixedTokens: 5_000,
    targetTokens: 50_000,
    afterPrune: 40_000,
    pruneRewrittenTokens: 3_000,
    afterSummary: 30_000,
    summaryOutputTokens: 5_000,
    summaryContinues: true,
    horizon: HORIZON,
    prices: TYPICAL_CACHE_PRICES,
  };
  // 70 steps; call 100 000 × (0.98 × 0.1 + 0.02) = 11 800, output 20 000, rewrite 25 000 × 0.9 = 22 500:
  // 54 300 / 70 ≈ 775.7; carried (30 000 + 100 000) / 2 × 0.1 = 6 500.
  const SUMMARY_PER_STEP = 7_275.7;

  test('a prune that rewrites from the first message and saves little loses to a summary at cached price 0.1', () => {
    // Target 90 000 so a prune to 90 000 lands; it re-bills everything after the pinned messages.
    const choice = pruneOrSummary({ ...base, targetTokens: 90_000, afterPrune: 90_000, pruneRewrittenTokens: 85_000 });
    assert.equal(choice.strategy, 'summary');
    // 10 steps; 85 000 × 0.9 / 10 = 7 650; carried (90 000 + 100 000) / 2 × 0.1 = 9 500.
    assert.equal(choice.economics.pruneCostPerStep, 17_150);
    assert.equal(choice.economics.summaryCostPerStep, SUMMARY_PER_STEP);
    assert.deepEqual(choice.economics, {
      rewrittenTokens: 25_000,
      savedTokens: 70_000,
      stepsToNextCompaction: 70,
      costPerStep: SUMMARY_PER_STEP,
      pruneCostPerStep: 17_150,
      summaryCostPerStep: SUMMARY_PER_STEP,
    });
  });

  test('a prune that saves a lot and rewrites only a short suffix wins', () => {
    const choice = pruneOrSummary(base);
    assert.equal(choice.strategy, 'prune');
    // 60 steps; 3 000 × 0.9 / 60 = 45; carried (40 000 + 100 000) / 2 × 0.1 = 7 000.
    assert.deepEqual(choice.economics, {
      rewrittenTokens: 3_000,
      savedTokens: 60_000,
      stepsToNextCompaction: 60,
      costPerStep: 7_045,
      pruneCostPerStep: 7_045,
      summaryCostPerStep: SUMMARY_PER_STEP,
    });
  });

  test('a prune that does not reach the target loses even when it is cheaper per step', () => {
    // A standalone summary request shares only the 5 000 pinned tokens with the cache: 95 500 + 20 000 + 22 500
    // over 70 steps ≈ 1 971, plus 6 500 carried; the prune to 55 000 that rewrites nothing costs 7 750.
    const choice = pruneOrSummary({ ...base, summaryContinues: false, afterPrune: 55_000, pruneRewrittenTokens: 0 });
    assert.ok(choice.economics.pruneCostPerStep! < choice.economics.summaryCostPerStep!, JSON.stringify(choice.economics));
    assert.equal(choice.strategy, 'summary');
  });

  test('property: a prune that does not reach the target never wins while a summary may run', () => {
    fc.assert(
      fc.property(choiceArb, (input) => {
        fc.pre(input.afterPrune > input.targetTokens && input.afterSummary !== undefined);
        assert.equal(pruneOrSummary(input).strategy, 'summary');
      }),
      { numRuns: 2_000, seed: 25 },
    );
  });

  test('property: when pruning wins it lands at the target and costs no more per step', () => {
    fc.assert(
      fc.property(choiceArb, (input) => {
        const choice = pruneOrSummary(input);
        if (choice.strategy !== 'prune' || input.afterSummary === undefined) return;
        assert.ok(input.afterPrune <= input.targetTokens);
        assert.ok(choice.economics.pruneCostPerStep! <= choice.economics.summaryCostPerStep!, JSON.stringify(choice.economics));
      }),
      { numRuns: 2_000, seed: 26 },
    );
  });

  test('without a summary (breaker open, or nothing older to summarize) pruning is the only way, weighed or not', () => {
    const choice = pruneOrSummary({ ...base, afterSummary: undefined, afterPrune: 70_000 });
    assert.equal(choice.strategy, 'prune');
    assert.equal(choice.economics.summaryCostPerStep, undefined);
  });

  test('with no cache discount a prune re-bills nothing: it wins whenever it lands at the target no higher than the summary', () => {
    // The prune's cost per step is its carried context alone; the summary's is its carried context plus its call.
    const choice = pruneOrSummary({ ...base, prices: NO_DISCOUNT, afterPrune: 30_000, pruneRewrittenTokens: 85_000 });
    assert.equal(choice.strategy, 'prune');
    assert.equal(choice.economics.pruneCostPerStep, 65_000);
    fc.assert(
      fc.property(choiceArb, (input) => {
        const free = { ...input, prices: NO_DISCOUNT };
        fc.pre(free.afterSummary !== undefined && free.afterPrune <= free.targetTokens && free.afterPrune <= free.afterSummary);
        assert.equal(pruneOrSummary(free).strategy, 'prune');
      }),
      { numRuns: 2_000, seed: 27 },
    );
  });
});
