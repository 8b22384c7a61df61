/** Budget guards and spend arithmetic: tables of cases, no I/O. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  approvalProblem,
  checkBudget,
  extendRepeat,
  NO_REPEAT,
  withApproval,
  type BudgetLimits,
  type BudgetUse,
} from '../../../src/policy/budget';
import { addSpend, costOf, NO_SPEND, totalCost, totalTokens } from '../../../src/policy/spend';

const LIMITS: BudgetLimits = { maxSteps: 10, maxTotalTokens: 5000, maxCostUsd: 0.5, maxRepeatedToolCalls: 3 };
const use = (over: Partial<BudgetUse> = {}): BudgetUse => ({ steps: 2, totalTokens: 100, costUsd: 0.01, repeat: NO_REPEAT, ...over });

describe('checkBudget', () => {
  const cases: Array<{ name: string; use: BudgetUse; limits?: BudgetLimits; guard?: string; reason?: RegExp }> = [
    { name: 'within every limit', use: use() },
    { name: 'steps reached', use: use({ steps: 10 }), guard: 'max_steps', reason: /10 steps taken, maxSteps 10/ },
    { name: 'tokens reached', use: use({ totalTokens: 5000 }), guard: 'max_total_tokens', reason: /5000 tokens billed/ },
    { name: 'cost reached', use: use({ costUsd: 0.5 }), guard: 'max_cost_usd', reason: /\$0\.5000 spent, maxCostUsd \$0\.5/ },
    {
      name: 'the same call three times',
      use: use({ repeat: { fingerprint: 'f', tool: 'list_files', count: 3 } }),
      guard: 'repeated_tool_call',
      reason: /list_files called 3 times in a row/,
    },
    { name: 'steps win over tokens', use: use({ steps: 11, totalTokens: 9999 }), guard: 'max_steps' },
    { name: 'no token or cost limit set', use: use({ totalTokens: 1e9, costUsd: 1e3 }), limits: { maxSteps: 10, maxRepeatedToolCalls: 3 } },
  ];
  for (const { name, use: used, limits, guard, reason } of cases) {
    test(name, () => {
      const verdict = checkBudget(used, limits ?? LIMITS);
      if (guard === undefined) return assert.deepEqual(verdict, { kind: 'within' });
      assert.equal(verdict.kind, 'exceeded');
      if (verdict.kind !== 'exceeded') return;
      assert.equal(verdict.guard, guard);
      if (reason) assert.match(verdict.reason, reason);
    });
  }
});

describe('extendRepeat', () => {
  test('counts identical calls in a row and restarts on a different one', () => {
    const same = { name: 'list_files', fingerprint: 'aaa' };
    let run = extendRepeat(NO_REPEAT, [same]);
    run = extendRepeat(run, [same, same]);
    assert.deepEqual(run, { fingerprint: 'aaa', tool: 'list_files', count: 3 });
    run = extendRepeat(run, [{ name: 'read_file', fingerprint: 'bbb' }]);
    assert.deepEqual(run, { fingerprint: 'bbb', tool: 'read_file', count: 1 });
  });
  test('a call without a fingerprint (an old history) breaks the run', () => {
    const run = extendRepeat({ fingerprint: 'aaa', tool: 'x', count: 3 }, [{ name: 'x' }]);
    assert.equal(run.count, 0);
  });
});

describe('approval', () => {
  test('a step approval must raise maxSteps above the steps taken, and names the field', () => {
    const paused = use({ steps: 10 });
    assert.match(approvalProblem(paused, LIMITS, {}) ?? '', /^maxSteps: still exhausted/);
    assert.match(approvalProblem(paused, LIMITS, { maxSteps: 10 }) ?? '', /maxSteps/);
    assert.equal(approvalProblem(paused, LIMITS, { maxSteps: 11 }), undefined);
  });
  test('a repeated call is acknowledged by approving at all', () => {
    assert.equal(approvalProblem(use({ repeat: { fingerprint: 'f', count: 3 } }), LIMITS, {}), undefined);
  });
  test('raising one limit leaves the others', () => {
    assert.deepEqual(withApproval(LIMITS, { maxCostUsd: 2 }), { ...LIMITS, maxCostUsd: 2 });
    assert.match(approvalProblem(use({ totalTokens: 6000 }), LIMITS, { maxCostUsd: 2 }) ?? '', /^maxTotalTokens/);
  });
});

describe('spend', () => {
  const price = { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 };
  test('cached prompt tokens are billed at the cached price', () => {
    // 600 fresh × $2 + 400 cached × $0.50 + 100 out × $8, per million.
    assert.equal(costOf({ promptTokens: 1000, cachedTokens: 400, completionTokens: 100 }, price), (1200 + 200 + 800) / 1e6);
  });
  test('without a cached price, cached tokens cost the input price; without a price, nothing', () => {
    assert.equal(costOf({ promptTokens: 1000, cachedTokens: 400, completionTokens: 0 }, { inputPerMillion: 1, outputPerMillion: 1 }), 1000 / 1e6);
    assert.equal(costOf({ promptTokens: 1000, completionTokens: 10 }, undefined), 0);
  });
  test('cached tokens above the prompt are clamped', () => {
    assert.equal(costOf({ promptTokens: 100, cachedTokens: 500, completionTokens: 0 }, price), (100 * 0.5) / 1e6);
  });
  test('ledgers add up; totals cover agent and summary calls', () => {
    const agent = addSpend(addSpend(NO_SPEND, { promptTokens: 100, completionTokens: 10, cachedTokens: 50 }, price), { promptTokens: 200, completionTokens: 20 }, price);
    const summary = addSpend(NO_SPEND, { promptTokens: 1000, completionTokens: 100 }, price, 2);
    assert.deepEqual({ ...agent, costUsd: undefined }, { calls: 2, promptTokens: 300, completionTokens: 30, cachedTokens: 50, costUsd: undefined });
    assert.equal(summary.calls, 2);
    assert.equal(totalTokens(agent, summary), 1430);
    assert.equal(totalCost(agent, summary), agent.costUsd + summary.costUsd);
  });
});
