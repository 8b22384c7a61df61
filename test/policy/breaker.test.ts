/** The circuit breaker: three consecutive failures open it, any success closes it; plain JSON. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  allowsAutoCompaction,
  BreakerStateSchema,
  CLOSED_BREAKER,
  recordFailure,
  recordSuccess,
  type BreakerState,
} from '../../src/policy/breaker';

type Event = 'fail' | 'ok';

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
});
