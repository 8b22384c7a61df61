/**
 * DESIGN §5 "Land with room" in decide and verifyCompaction, on the 32K example (trigger 16 384,
 * target 8 192, summary ≤ 3 276, memory ≤ 1 638): a compaction must land at the target, and an open
 * breaker's one retry runs at its step, under the trigger too.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyCompaction, type CompactionResults } from '../../../src/policy/applyCompaction';
import { CLOSED_BREAKER, type BreakerState } from '../../../src/policy/breaker';
import { decide } from '../../../src/policy/decide';
import type { AppliedCompaction } from '../../../src/policy/compactionEvent';
import type { CompactDecision, DecideInput, Decision } from '../../../src/policy/decision';
import type { LedgerEntry } from '../../../src/policy/ledger';
import { verifyCompaction, VerifyFailure } from '../../../src/policy/verifyCompaction';
import { LedgerBuilder, settingsFor } from './builders';

const S32 = settingsFor(32_768);
/** Opened at step 10 with a cool-down of 20: the retry is due from step 30. */
const OPEN_UNTIL_30: BreakerState = { consecutiveFailures: 3, open: true, openedAtStep: 10, coolDownSteps: 20, retryAtStep: 30 };

function input(ledger: readonly LedgerEntry[], more: Partial<DecideInput> = {}): DecideInput {
  return { ledger, settings: S32, request: 'auto', breaker: CLOSED_BREAKER, estimateInput: { toolSchemaTokens: 300 }, landWithRoom: true, ...more };
}

function expectKind<K extends Decision['kind']>(decision: Decision, kind: K): Extract<Decision, { kind: K }> {
  assert.equal(decision.kind, kind, JSON.stringify(decision));
  return decision as Extract<Decision, { kind: K }>;
}

/** Views at their expected size and a summary of `summaryTokens`, with seqs from 500 on. */
function resultsFor(decision: CompactDecision, summaryTokens: number): CompactionResults {
  let seq = 500;
  return {
    views: [...decision.prune, ...decision.tailCuts].map((cut) => ({ replacedSeq: cut.seq, seq: seq++, tokens: cut.expectedTokens, chars: cut.headChars + cut.tailChars })),
    ...(decision.strategy === 'summary' ? { summary: { seq: seq++, tokens: summaryTokens, chars: summaryTokens * 4 } } : {}),
  };
}

/** Steps of 100 + 1500 tokens (6000 chars: too short to prune), 1608 with overhead, after 1008 pinned and schemas. */
const steps = (count: number): LedgerEntry[] => LedgerBuilder.session().steps(count, [{ tokens: 1500, chars: 6000 }], 100).build();

describe('decide with landWithRoom', () => {
  test('a compact decision carries landAt = the target, and its projection is at or under it', () => {
    const decision = expectKind(decide(input(steps(12))), 'compact');
    assert.equal(decision.landAt, S32.targetTokens);
    assert.equal(decision.landAt, 8_192);
    assert.ok(decision.expectedAfter <= decision.landAt, `${decision.expectedAfter}`);
    assert.equal(decision.shortfall, undefined);
    // The earlier rules carry no landAt.
    assert.equal(expectKind(decide(input(steps(12), { landWithRoom: false })), 'compact').landAt, undefined);
  });

  test('a shortfall is measured against the target, not the trigger', () => {
    // Pinned messages of 6 000 + 200 alone leave no room under the 8 192 target with the budgets (4 914).
    const ledger = LedgerBuilder.session(6_000, 200).steps(8, [{ tokens: 1500, chars: 6000 }], 100).build();
    const decision = expectKind(decide(input(ledger)), 'compact');
    assert.ok(decision.expectedAfter < S32.triggerTokens, 'under the trigger, over the target');
    assert.equal(decision.shortfall?.reason, 'pinned_over_budget');
    assert.equal(decision.shortfall?.overByTokens, decision.expectedAfter - S32.targetTokens);
    // The earlier rules only had to get under the trigger: no shortfall for the same plan.
    assert.equal(expectKind(decide(input(ledger, { landWithRoom: false })), 'compact').shortfall, undefined);
  });

  test(
    'a tail that would fill the cap leaves room for the summary and memory framing, and lands at the target',
    () => {
      // One step of 60 + 2202 + 2 × 4 = 2270 tokens fills the 8192 − 1008 − 4914 = 2270 cap exactly; results of
      // 8000 chars are under pruneMinChars, so nothing can be pruned.
      const ledger = LedgerBuilder.session().steps(10, [{ tokens: 2_202, chars: 8_000 }], 60).build();
      for (const graceful of [false, true]) {
        const decision = expectKind(decide(input(ledger, { graceful })), 'compact');
        // 2270 less the two messages' overhead (and the summary header with graceful).
        assert.equal(decision.tailCapTokens, graceful ? 2_222 : 2_262);
        assert.equal(decision.projection.excessTokens, 0, 'no server excess');
        assert.ok(decision.expectedAfter <= S32.targetTokens, `graceful ${graceful}: ${JSON.stringify({ expectedAfter: decision.expectedAfter, shortfall: decision.shortfall })}`);
        assert.equal(decision.shortfall, undefined);
      }
    },
  );
});

describe('decide with the breaker open', () => {
  // Steps of 100 + 2400 tokens (9600 chars, over pruneMinChars): pruning the older ones gets under
  // the 16 384 trigger but not to the 8 192 target.
  const prunable = (): LedgerEntry[] => LedgerBuilder.session().steps(8, [{ tokens: 2_400, chars: 9_600 }], 100).build();
  const openAt15 = { breaker: OPEN_UNTIL_30, step: 15, graceful: true } as const;

  test('a prune that would not land at the target is not tried: the oldest steps are dropped to it at once', () => {
    const earlier = expectKind(decide(input(prunable(), { ...openAt15, landWithRoom: false })), 'compact');
    assert.equal(earlier.strategy, 'prune', 'under the earlier rules the prune gets under the trigger and is enough');
    assert.ok(earlier.expectedAfter < S32.triggerTokens && earlier.expectedAfter > S32.targetTokens, `${earlier.expectedAfter}`);
    const truncation = expectKind(decide(input(prunable(), openAt15)), 'truncate');
    assert.equal(truncation.cause, 'breaker_open');
    assert.ok(truncation.expectedAfter <= S32.targetTokens, `${truncation.expectedAfter}`);
  });
});

describe('decide: the half-open retry at its step', () => {
  // Eight steps: 1008 + 8 × 1608 = 13 872, under the 16 384 trigger, with seven steps older than the tail.
  const underTrigger = (): LedgerEntry[] => steps(8);

  test('with landWithRoom the half-open breaker plans a compaction at retryAtStep under the trigger', () => {
    const retry = expectKind(decide(input(underTrigger(), { breaker: OPEN_UNTIL_30, step: 30 })), 'compact');
    assert.equal(retry.strategy, 'summary');
    assert.equal(retry.requestedBy, 'auto');
    assert.ok(retry.estimateBefore < S32.triggerTokens);
    assert.ok(retry.expectedAfter <= S32.targetTokens);
    // Later steps too, as long as the breaker is half-open.
    assert.equal(decide(input(underTrigger(), { breaker: OPEN_UNTIL_30, step: 45, graceful: true })).kind, 'compact');
  });

  test('before retryAtStep, with the breaker closed, or with no step given: nothing under the trigger', () => {
    assert.equal(expectKind(decide(input(underTrigger(), { breaker: OPEN_UNTIL_30, step: 29 })), 'none').reason, 'under_trigger');
    assert.equal(expectKind(decide(input(underTrigger(), { step: 30 })), 'none').reason, 'under_trigger');
    assert.equal(expectKind(decide(input(underTrigger(), { breaker: OPEN_UNTIL_30 })), 'none').reason, 'under_trigger');
  });

  test('without landWithRoom the half-open breaker waits for the trigger: none', () => {
    const decision = expectKind(decide(input(underTrigger(), { breaker: OPEN_UNTIL_30, step: 30, landWithRoom: false })), 'none');
    assert.equal(decision.reason, 'under_trigger');
    assert.equal(expectKind(decide(input(underTrigger(), { breaker: OPEN_UNTIL_30, step: 30, landWithRoom: false, graceful: true })), 'none').reason, 'under_trigger');
  });

  test('a half-open retry with nothing older than the tail and nothing to cut: none', () => {
    assert.equal(expectKind(decide(input(steps(1), { breaker: OPEN_UNTIL_30, step: 30 })), 'none').reason, 'under_trigger');
  });

  test(
    'over the trigger the half-open retry runs too, graceful or not',
    () => {
      const overTrigger = steps(12);
      assert.equal(decide(input(overTrigger, { breaker: OPEN_UNTIL_30, step: 30, graceful: true })).kind, 'compact');
      assert.equal(decide(input(overTrigger, { breaker: OPEN_UNTIL_30, step: 30 })).kind, 'compact');
    },
  );
});

describe('verifyCompaction against landAt', () => {
  const ledger = steps(12);
  const decision = expectKind(decide(input(ledger)), 'compact');
  // pinned and schemas 1008 + one step 1608 + summary 2000 with its overhead: 4620.
  const applied = applyCompaction(ledger, decision, resultsFor(decision, 2_000));

  test('a result at or under landAt is a success', () => {
    assert.equal(applied.event.tokensAfter, 4_620);
    assert.deepEqual(verifyCompaction(decision, applied), { ok: true });
    assert.deepEqual(verifyCompaction({ ...decision, landAt: 4_620 }, applied), { ok: true }, 'landing exactly at the target is landing at it');
  });

  test('a result over landAt (under the trigger) fails with not_at_target, and is adopted since it shrank the context', () => {
    const verdict = verifyCompaction({ ...decision, landAt: 4_619 }, applied);
    assert.equal(verdict.ok, false);
    assert.ok(!verdict.ok && verdict.code === VerifyFailure.notAtTarget, JSON.stringify(verdict));
    assert.ok(!verdict.ok && verdict.adopt);
    assert.ok(!verdict.ok && verdict.message.includes('4620') && verdict.message.includes('4619'), !verdict.ok ? verdict.message : '');
  });

  test('a result over landAt that did not shrink the context is not adopted', () => {
    const notSmaller: AppliedCompaction = { ...applied, event: { ...applied.event, tokensBefore: applied.event.tokensAfter } };
    const verdict = verifyCompaction({ ...decision, landAt: 4_619 }, notSmaller);
    assert.ok(!verdict.ok && verdict.code === VerifyFailure.notAtTarget && !verdict.adopt, JSON.stringify(verdict));
  });

  test('decisions from before the rule (no landAt) only have to get under the trigger', () => {
    const { landAt: _landAt, ...earlier } = decision;
    assert.equal(_landAt, 8_192);
    assert.deepEqual(verifyCompaction({ ...earlier, target: 4_000 }, applied), { ok: true });
  });

  test('not under the trigger is reported first, also with landAt', () => {
    const verdict = verifyCompaction({ ...decision, trigger: 4_620, landAt: 4_000 }, applied);
    assert.ok(!verdict.ok && verdict.code === VerifyFailure.notUnderTrigger, JSON.stringify(verdict));
  });
});
