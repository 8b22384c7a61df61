/**
 * Property tests over thousands of generated ledgers (fast-check): whole simulated sessions with
 * windows from 8K to 1M, 0–4 tool calls per step, results of 100 B–200 KB, manual and reactive
 * requests, failing compactions and repeated compactions of compacted contexts; plus single
 * decisions on arbitrary ledgers. The rules checked are in `simulate.ts` (checkDecision and friends).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { accounting } from '../../src/policy/accounting';
import { applyCompaction, applyTruncation } from '../../src/policy/applyCompaction';
import { decide } from '../../src/policy/decide';
import type { CompactionRequest, DecideInput } from '../../src/policy/decision';
import { estimateContext } from '../../src/policy/estimate';
import { fromSeqRuns } from '../../src/policy/seqRuns';
import { resolveCompactionSettings } from '../../src/policy/settings';
import { LedgerBuilder, orphanProblem, pinnedProblem } from './builders';
import { checkCompaction, checkTruncation, emptyStats, sessionArb, settingsArb, Simulation, windowArb } from './simulate';

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
});
