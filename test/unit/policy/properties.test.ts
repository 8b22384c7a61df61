/**
 * Property tests over thousands of generated ledgers (fast-check): whole simulated sessions with
 * windows from 8K to 1M, 0–4 tool calls per step, results of 100 B–200 KB, manual and reactive
 * requests, failing compactions and repeated compactions of compacted contexts; plus single
 * decisions on arbitrary ledgers. The rules checked are in `simulate.ts` (checkDecision and friends).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { accounting } from '../../../src/policy/accounting';
import { applyCompaction, applyTruncation } from '../../../src/policy/applyCompaction';
import { TYPICAL_CACHE_PRICES, type CachePrices } from '../../../src/policy/cacheCost';
import { decide } from '../../../src/policy/decide';
import type { CompactionRequest, Decision, DecideInput } from '../../../src/policy/decision';
import { estimateContext } from '../../../src/policy/estimate';
import { fromSeqRuns } from '../../../src/policy/seqRuns';
import { resolveCompactionSettings } from '../../../src/policy/settings';
import { LedgerBuilder, orphanProblem, pinnedProblem } from './builders';
import { checkCompaction, checkTruncation, emptyStats, sessionArb, settingsArb, Simulation, windowArb, type SessionScript } from '../../policy/simulate';

// A fixed seed keeps CI reproducible; FC_SEED explores further (fast-check prints the seed of a failure).
const SEED = process.env['FC_SEED'] ? Number(process.env['FC_SEED']) : 20_240_601;
// FC_SCALE multiplies the number of runs, for a longer hunt than CI affords.
const SCALE = process.env['FC_SCALE'] ? Number(process.env['FC_SCALE']) : 1;
const runs = (n: number): number => Math.max(1, Math.round(n * SCALE));
/**
 * A failure found in a long session can take minutes to shrink; past this budget fast-check reports
 * the smallest counterexample so far instead (a normal run takes a few seconds).
 */
const limits = { interruptAfterTimeLimit: 60_000 * SCALE, markInterruptAsFailure: true };

describe('compaction invariants over simulated sessions', () => {
  test('every decision of every session keeps the rules (orphans, tail, pinned, no-op, accounting, estimate, determinism)', () => {
    const stats = emptyStats();
    fc.assert(
      fc.property(sessionArb({ maxTurns: 6, maxSteps: 14 }), (script) => {
        new Simulation(script, stats).run();
      }),
      { numRuns: runs(1_000), seed: SEED, ...limits },
    );
    if (process.env['FC_STATS']) console.log(stats);
    // The generator must reach every path the rules are about, or the property proves little.
    for (const [name, count] of Object.entries(stats)) assert.ok(count > 0, `no ${name} in ${JSON.stringify(stats)}`);
    assert.ok(stats.decisions > 15_000 * SCALE, `only ${stats.decisions} decisions`);
  });

  test('long sessions in small windows compact many times over (summaries of summaries, views of views)', () => {
    const stats = emptyStats();
    const small = sessionArb({ maxTurns: 8, maxSteps: 24, size: 'large' }).filter((script) => script.contextWindow <= 65_536);
    fc.assert(
      fc.property(small, (script) => {
        new Simulation(script, stats).run();
      }),
      { numRuns: runs(300), seed: SEED + 1, ...limits },
    );
    if (process.env['FC_STATS']) console.log(stats);
    assert.ok(stats.recompactions > 100, JSON.stringify(stats));
  });
});

describe('single decisions on arbitrary ledgers', () => {
  /** An arbitrary well-formed ledger: turns of steps with 0–4 results of 100 B–200 KB. */
  const ledgerArb = fc
    .record({
      system: fc.integer({ min: 10, max: 3_000 }),
      task: fc.integer({ min: 10, max: 3_000 }),
      turns: fc.array(
        fc.record({
          user: fc.integer({ min: 5, max: 500 }),
          steps: fc.array(
            fc.record({
              assistant: fc.integer({ min: 5, max: 1_200 }),
              tools: fc.array(fc.integer({ min: 100, max: 200_000 }), { maxLength: 4 }),
            }),
            { minLength: 1, maxLength: 25 },
          ),
        }),
        { minLength: 1, maxLength: 8 },
      ),
    })
    .map((shape) => {
      const builder = LedgerBuilder.session(shape.system, shape.task);
      shape.turns.forEach((turn, index) => {
        if (index > 0) builder.user(turn.user);
        for (const step of turn.steps) {
          builder.step(
            step.tools.map((chars) => ({ tokens: Math.ceil(chars / 3.5), chars })),
            step.assistant,
          );
        }
      });
      return builder.build();
    });

  const caseArb = fc.record({
    ledger: ledgerArb,
    window: windowArb,
    request: fc.constantFrom<CompactionRequest>('auto', 'manual', 'reactive'),
    open: fc.boolean(),
    calibration: fc.double({ min: 0.5, max: 2, noNaN: true }),
    anchorFactor: fc.option(fc.double({ min: 0.8, max: 1.4, noNaN: true })),
    toolSchemaTokens: fc.integer({ min: 0, max: 2_000 }),
  }).chain((c) => settingsArb(c.window).map((settings) => ({ ...c, settings })));

  test('decide → apply keeps every rule, and a second compaction of the result does too', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const settings = resolveCompactionSettings(c.window, c.settings);
        const originals = c.ledger.map((entry) => entry.seq);
        let ledger = c.ledger;
        let nextSeq = Math.max(...originals) + 1;
        const truncated: number[] = [];
        for (let round = 0; round < 2; round++) {
          const last = [...ledger].reverse().find((entry) => entry.role === 'assistant');
          const input: DecideInput = {
            ledger,
            settings,
            request: round === 0 ? c.request : 'manual',
            breaker: { consecutiveFailures: c.open ? 3 : 0, open: c.open },
            estimateInput: {
              toolSchemaTokens: c.toolSchemaTokens,
              calibration: c.calibration,
              ...(c.anchorFactor !== null && last && round === 0
                ? { anchor: { promptTokens: Math.ceil(ledger.length * 100 * c.anchorFactor), completionTokens: last.tokens, lastSeq: last.seq } }
                : {}),
            },
          };
          const snapshot = JSON.stringify(input);
          const decision = decide(input);
          assert.deepEqual(decide(JSON.parse(snapshot) as DecideInput), decision);
          const estimate = estimateContext(ledger, input.estimateInput, settings.perMessageOverheadTokens).tokens;
          if (decision.kind === 'none') return;
          let next;
          if (decision.kind === 'truncate') {
            checkTruncation(decision, ledger, settings.perMessageOverheadTokens);
            next = applyTruncation(ledger, decision);
            truncated.push(...fromSeqRuns(next.event.truncatedSeqs));
          } else {
            checkCompaction(decision, input, estimate);
            const views = [...decision.prune, ...decision.tailCuts].map((cut) => ({
              replacedSeq: cut.seq,
              seq: nextSeq++,
              tokens: cut.expectedTokens,
              chars: cut.headChars + cut.tailChars,
            }));
            const summary = decision.strategy === 'summary' ? { seq: nextSeq++, tokens: 1, chars: 4 } : undefined;
            next = applyCompaction(ledger, decision, { views, ...(summary ? { summary } : {}) });
            assert.ok(next.event.tokensAfter <= decision.expectedAfter);
          }
          assert.equal(orphanProblem(next.ledger), undefined, orphanProblem(next.ledger));
          assert.equal(pinnedProblem(ledger, next.ledger), undefined);
          const report = accounting(originals, next.ledger, truncated);
          assert.ok(report.ok, JSON.stringify(report));
          ledger = next.ledger;
        }
      }),
      { numRuns: runs(3_000), seed: SEED + 2, ...limits },
    );
  });
  test('landWithRoom: a plan never lands over its target unless it says why', () => {
    const pricesArb = fc.constantFrom<CachePrices>(TYPICAL_CACHE_PRICES, { cachedInput: 0.25, output: 4 }, { cachedInput: 0.5, output: 5 }, { cachedInput: 1, output: 4 });
    const rulesArb = fc.record({
      graceful: fc.boolean(),
      step: fc.integer({ min: 0, max: 60 }),
      retryAtStep: fc.integer({ min: 0, max: 60 }),
      prices: pricesArb,
      targetShareOfTrigger: fc.option(fc.double({ min: 0.3, max: 0.9, noNaN: true })),
      pruneOnlyWhenItPays: fc.boolean(),
    });
    let compactions = 0;
    let weighed = 0;
    fc.assert(
      fc.property(caseArb, rulesArb, (c, rules) => {
        const partial = { ...c.settings, pruneOnlyWhenItPays: rules.pruneOnlyWhenItPays, ...(rules.targetShareOfTrigger !== null ? { targetShareOfTrigger: rules.targetShareOfTrigger } : {}) };
        let settings;
        try {
          settings = resolveCompactionSettings(c.window, partial, { landWithRoom: true });
        } catch {
          fc.pre(false);
          return;
        }
        const input: DecideInput = {
          ledger: c.ledger,
          settings,
          request: c.request,
          breaker: c.open ? { consecutiveFailures: 3, open: true, openedAtStep: 0, coolDownSteps: 20, retryAtStep: rules.retryAtStep } : { consecutiveFailures: 0, open: false },
          estimateInput: { toolSchemaTokens: c.toolSchemaTokens, calibration: c.calibration },
          step: rules.step,
          graceful: rules.graceful,
          memoryAtTruncation: true,
          landWithRoom: true,
          prices: rules.prices,
        };
        const decision = decide(input);
        if (decision.kind !== 'compact') return;
        compactions++;
        if (decision.economics) weighed++;
        assert.equal(decision.landAt, settings.targetTokens);
        assert.ok(decision.expectedAfter <= decision.landAt || decision.shortfall !== undefined, `over the target without a reason: ${JSON.stringify(decision)}`);
        if (decision.shortfall) assert.equal(decision.shortfall.overByTokens, decision.expectedAfter - decision.landAt);
        checkCompaction(decision, input, estimateContext(c.ledger, input.estimateInput, settings.perMessageOverheadTokens).tokens);
      }),
      { numRuns: runs(3_000), seed: SEED + 3, ...limits },
    );
    assert.ok(compactions > 500 * SCALE && weighed > 100 * SCALE, `${compactions} compactions, ${weighed} weighed in cache terms`);
  });
});

describe('the rules of "compaction that pays for itself" over simulated sessions (landWithRoom, graceful, cost-weighed pruning)', () => {
  const pricesArb = fc.constantFrom<CachePrices>(TYPICAL_CACHE_PRICES, { cachedInput: 0.25, output: 4 }, { cachedInput: 0.5, output: 5 }, { cachedInput: 1, output: 4 });

  /** Sessions with settings valid under the new rules, a target share now and then, and the cache prices of their model. */
  const scriptArb = (options: Parameters<typeof sessionArb>[0]): fc.Arbitrary<{ script: SessionScript; prices: CachePrices }> =>
    fc
      .record({
        script: sessionArb(options),
        targetShareOfTrigger: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.double({ min: 0.35, max: 0.9, noNaN: true }) }),
        summaryRequest: fc.constantFrom('continue', 'standalone'),
        // Short cool-downs, so sessions of a few dozen steps reach the half-open retry.
        breakerCoolDownSteps: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 6 })),
        prices: pricesArb,
      })
      .map(({ script, targetShareOfTrigger, summaryRequest, breakerCoolDownSteps, prices }) => ({
        script: {
          ...script,
          settings: {
            ...script.settings,
            summaryRequest,
            ...(targetShareOfTrigger !== undefined ? { targetShareOfTrigger } : {}),
            ...(breakerCoolDownSteps !== undefined ? { breakerCoolDownSteps } : {}),
          },
        },
        prices,
      }))
      .filter(({ script }) => {
        try {
          resolveCompactionSettings(script.contextWindow, script.settings, { landWithRoom: true });
          return true;
        } catch {
          return false;
        }
      });

  /** What the new rules did across a run, so the properties are known to reach them. */
  interface Reached {
    compactions: number;
    prunesThatPay: number;
    summariesOverPrunes: number;
    retriesUnderTrigger: number;
    shortfalls: number;
  }

  function observer(reached: Reached): (decision: Decision, input: DecideInput) => void {
    return (decision, input) => {
      if (decision.kind !== 'compact') return;
      reached.compactions++;
      // The property: a plan lands at its target, or says why not.
      assert.equal(decision.landAt, input.settings.targetTokens);
      assert.ok(decision.expectedAfter <= decision.landAt || decision.shortfall !== undefined, `over the target without a reason: ${JSON.stringify(decision)}`);
      if (decision.shortfall) reached.shortfalls++;
      if (decision.economics?.summaryCostPerStep !== undefined) {
        if (decision.strategy === 'prune') reached.prunesThatPay++;
        else reached.summariesOverPrunes++;
      }
      const estimate = estimateContext(input.ledger, input.estimateInput, input.settings.perMessageOverheadTokens).tokens;
      if (input.request === 'auto' && estimate < input.settings.triggerTokens) reached.retriesUnderTrigger++;
    };
  }

  test('nothing vanishes and every plan lands at its target or says why, across many compactions', () => {
    const stats = emptyStats();
    const reached: Reached = { compactions: 0, prunesThatPay: 0, summariesOverPrunes: 0, retriesUnderTrigger: 0, shortfalls: 0 };
    fc.assert(
      fc.property(scriptArb({ maxTurns: 6, maxSteps: 14 }), ({ script, prices }) => {
        const simulation = new Simulation(script, stats, { graceful: true, landWithRoom: true, prices, observe: observer(reached) }).run();
        // Checked after every step and compaction too; once more at the end, as the property's statement.
        const report = simulation.accounting();
        assert.ok(report.ok, JSON.stringify(report));
      }),
      { numRuns: runs(600), seed: SEED + 10, ...limits },
    );
    if (process.env['FC_STATS']) console.log(stats, reached);
    for (const [name, count] of Object.entries(reached)) assert.ok(count > 0, `no ${name} in ${JSON.stringify(reached)}`);
    assert.ok(stats.summaries > 0 && stats.prunes > 0 && stats.truncations > 0 && stats.failures > 0, JSON.stringify(stats));
  });

  test('long sessions in small windows: summaries of summaries and views of views keep every seq exactly once', () => {
    const stats = emptyStats();
    const reached: Reached = { compactions: 0, prunesThatPay: 0, summariesOverPrunes: 0, retriesUnderTrigger: 0, shortfalls: 0 };
    const small = scriptArb({ maxTurns: 8, maxSteps: 24, size: 'large' }).filter(({ script }) => script.contextWindow <= 65_536);
    fc.assert(
      fc.property(small, ({ script, prices }) => {
        const simulation = new Simulation(script, stats, { graceful: true, landWithRoom: true, prices, observe: observer(reached) }).run();
        const report = simulation.accounting();
        assert.ok(report.ok, JSON.stringify(report));
      }),
      { numRuns: runs(200), seed: SEED + 11, ...limits },
    );
    if (process.env['FC_STATS']) console.log(stats, reached);
    assert.ok(stats.recompactions > 100, JSON.stringify(stats));
  });
});
