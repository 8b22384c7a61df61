/** The circuit breaker: three consecutive failures open it, any success closes it; plain JSON. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  allowsAutoCompaction,
  breakerWarning,
  BreakerStateSchema,
  isHalfOpen,
  CLOSED_BREAKER,
  recordFailure,
  recordSuccess,
  type BreakerState,
} from '../../../src/policy/breaker';

type Event = 'fail' | 'ok';
const RECENT = 3;

function run(events: Event[], threshold = 3): BreakerState {
  let state: BreakerState = CLOSED_BREAKER;
  for (const event of events) state = event === 'fail' ? recordFailure(state, threshold) : recordSuccess(state);
  return state;
}

describe('breaker', () => {
  const cases: Array<{ events: Event[]; threshold?: number; open: boolean; failures: number }> = [
    { events: [], open: false, failures: 0 },
    { events: ['fail', 'fail'], open: false, failures: 2 },
    { events: ['fail', 'fail', 'fail'], open: true, failures: 3 },
    { events: ['fail', 'fail', 'ok', 'fail', 'fail'], open: false, failures: 2 },
    { events: ['fail', 'fail', 'fail', 'fail'], open: true, failures: 4 },
    { events: ['fail', 'fail', 'fail', 'ok'], open: false, failures: 0 },
    { events: ['fail'], threshold: 1, open: true, failures: 1 },
  ];
  for (const c of cases) {
    test(`${c.events.join(',') || 'nothing'} (threshold ${c.threshold ?? 3})`, () => {
      const state = run(c.events, c.threshold);
      assert.deepEqual(state, { consecutiveFailures: c.failures, open: c.open });
      assert.equal(allowsAutoCompaction(state), !c.open);
    });
  }

  test('state survives a JSON round trip (continue-as-new) and validates', () => {
    const state = run(['fail', 'fail', 'fail']);
    const carried = JSON.parse(JSON.stringify(state)) as unknown;
    assert.deepEqual(BreakerStateSchema.parse(carried), state);
  });

  test('recording never mutates the previous state', () => {
    const before = { consecutiveFailures: 2, open: false };
    recordFailure(before, 3);
    recordSuccess(before);
    assert.deepEqual(before, { consecutiveFailures: 2, open: false });
  });

  describe('half-open', () => {
    const failAt = (state: BreakerState, step: number, reason = 'refusal') =>
      recordFailure(state, 3, { step, coolDownSteps: 20, reason });

    test('opens at the third failure with a retry one cool-down later; the steps before it stay closed to auto', () => {
      const opened = failAt(failAt(failAt(CLOSED_BREAKER, 3), 5), 7, 'not_shorter');
      assert.deepEqual(opened, {
        consecutiveFailures: 3,
        open: true,
        openedAtStep: 7,
        coolDownSteps: 20,
        retryAtStep: 27,
        recentFailures: ['refusal', 'refusal', 'not_shorter'],
      });
      assert.equal(allowsAutoCompaction(opened, 26), false);
      assert.equal(isHalfOpen(opened, 26), false);
      assert.equal(allowsAutoCompaction(opened, 27), true);
      assert.equal(isHalfOpen(opened, 27), true);
      assert.equal(allowsAutoCompaction(opened), false, 'without a step it never half-opens');
    });

    test('a failed retry doubles the cool-down, again and again; a success closes it', () => {
      let state = failAt(failAt(failAt(CLOSED_BREAKER, 1), 2), 3);
      state = failAt(state, 23, 'summarizer unavailable');
      assert.deepEqual([state.coolDownSteps, state.retryAtStep, state.openedAtStep], [40, 63, 3]);
      state = failAt(state, 63);
      assert.deepEqual([state.coolDownSteps, state.retryAtStep], [80, 143]);
      assert.deepEqual(state.recentFailures, ['refusal', 'summarizer unavailable', 'refusal'], `the newest ${RECENT}`);
      assert.deepEqual(recordSuccess(state), CLOSED_BREAKER);
    });

    test('the warning says since when, how many, why, and when it tries again; none while closed', () => {
      const state = failAt(failAt(failAt(CLOSED_BREAKER, 3), 5), 7, 'not_shorter');
      assert.equal(
        breakerWarning(state),
        'breaker OPEN since step 7: 3 compactions failed (refusal, refusal, not_shorter); running on pruning and truncation; next retry at step 27',
      );
      assert.equal(breakerWarning(failAt(CLOSED_BREAKER, 1)), undefined);
      assert.equal(breakerWarning(CLOSED_BREAKER), undefined);
    });

    test('a state carried from before the half-open breaker still validates and stays open', () => {
      const old = BreakerStateSchema.parse({ consecutiveFailures: 3, open: true });
      assert.equal(allowsAutoCompaction(old, 1000), false);
      const failed = failAt(old, 50);
      assert.deepEqual([failed.coolDownSteps, failed.retryAtStep], [40, 90]);
    });
  });
});
