/** Delegation's rules: who may delegate, the child's share of the budget, its id, and the tools a session sees. No I/O. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { carveChildBudget, childSessionId, DelegationSettingsSchema, delegationOffered, delegationRefusal } from '../../../src/policy/delegation';
import { sessionIdProblem } from '../../../src/session/sessionId';
import { sessionToolFilter } from '../../../src/session/toolFilter';
import { createBuiltinRegistry } from '../../../src/tools/registry';

const defaults = DelegationSettingsSchema.parse({});

describe('who may delegate', () => {
  test('a session below maxDepth is offered the tool; one at it, or with delegation off, is not', () => {
    assert.equal(delegationOffered(defaults, 0), true);
    assert.equal(delegationOffered(defaults, 1), true);
    assert.equal(delegationOffered(defaults, 2), false);
    assert.equal(delegationOffered({ ...defaults, enabled: false }, 0), false);
  });

  test('each limit refuses with its own name', () => {
    assert.equal(delegationRefusal(defaults, 0, { thisStep: 3, inAll: 3 }), undefined);
    assert.match(delegationRefusal(defaults, 0, { thisStep: 4, inAll: 4 }) ?? '', /maxChildrenPerStep/);
    assert.match(delegationRefusal(defaults, 0, { thisStep: 0, inAll: 16 }) ?? '', /maxChildren/);
    assert.match(delegationRefusal(defaults, 2, { thisStep: 0, inAll: 0 }) ?? '', /maxDepth is 2/);
    assert.match(delegationRefusal({ ...defaults, enabled: false }, 0, { thisStep: 0, inAll: 0 }) ?? '', /turned off/);
  });
});

describe("a child's budget", () => {
  test('without limits of its own, a child has only the step limit', () => {
    assert.deepEqual(carveChildBudget({ maxSteps: 200 }, {}, 1, 50), { kind: 'granted', limits: { maxSteps: 50 } });
    assert.deepEqual(carveChildBudget({ maxSteps: 20 }, { maxSteps: 80 }, 1, 50), { kind: 'granted', limits: { maxSteps: 20 } });
  });

  test('a limit left out is an equal share among the children starting and the parent', () => {
    const room = { maxSteps: 200, tokens: 90_000, costUsd: 3 };
    let left = { ...room };
    const given: number[] = [];
    // Three calls carve one after another, each from what the ones before left.
    for (const shares of [3, 2, 1]) {
      const carved = carveChildBudget(left, {}, shares, 50);
      assert.equal(carved.kind, 'granted');
      if (carved.kind !== 'granted') return;
      given.push(carved.limits.maxTotalTokens!);
      left = { ...left, tokens: left.tokens - carved.limits.maxTotalTokens!, costUsd: left.costUsd - carved.limits.maxCostUsd! };
    }
    assert.deepEqual(given, [22_500, 22_500, 22_500]);
    assert.equal(left.tokens, 22_500, 'the parent keeps a share');
  });

  test('a limit the call names is held to the room', () => {
    const carved = carveChildBudget({ maxSteps: 200, tokens: 10_000 }, { maxTotalTokens: 50_000 }, 1, 50);
    assert.deepEqual(carved, { kind: 'granted', limits: { maxSteps: 50, maxTotalTokens: 10_000 } });
  });

  test('nothing left is a refusal naming the limit', () => {
    assert.match(JSON.stringify(carveChildBudget({ maxSteps: 200, tokens: 0 }, {}, 1, 50)), /maxTotalTokens/);
    assert.match(JSON.stringify(carveChildBudget({ maxSteps: 200, costUsd: -0.01 }, {}, 1, 50)), /maxCostUsd/);
  });
});

describe("a child's id", () => {
  test("the parent's id and the result's seq, always a valid session id", () => {
    assert.equal(childSessionId('build-7', 12), 'build-7.d12');
    const long = 'x'.repeat(128);
    const other = `${'x'.repeat(127)}y`;
    assert.equal(sessionIdProblem(childSessionId(long, 123456)), undefined);
    assert.equal(childSessionId(long, 5).length <= 128, true);
    assert.notEqual(childSessionId(long, 5), childSessionId(other, 5), 'long ids with a common head stay apart');
  });
});

describe('the tools a session sees', () => {
  const registry = createBuiltinRegistry();
  const input = { delegation: defaults };

  test('all of them by default; without delegate where it may not delegate; only those named, and finish', () => {
    assert.equal(sessionToolFilter(input), undefined);
    assert.equal(registry.filtered(sessionToolFilter(input)), registry);
    const atDepth = registry.filtered(sessionToolFilter({ ...input, delegatedBy: { sessionId: 'p', depth: 2 } }));
    assert.equal(atDepth.get('delegate'), undefined);
    assert.ok(atDepth.get('run_command'));
    const only = registry.filtered(sessionToolFilter({ ...input, tools: ['read_file', 'delegate'] }));
    assert.deepEqual(only.names(), ['read_file', 'delegate', 'finish']);
    const off = registry.filtered(sessionToolFilter({ delegation: { ...defaults, enabled: false }, tools: ['read_file', 'delegate'] }));
    assert.deepEqual(off.names(), ['read_file', 'finish']);
  });
});
