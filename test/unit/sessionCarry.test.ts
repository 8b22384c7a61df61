/**
 * The carried state of a session: one object the next run takes whole, and carries written by
 * earlier versions (before workspace affinity, budget guards, or the `byStrategy` name) still load.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveSessionInput } from '../../src/session/resolve';
import { firstRunCarry, nextRunCarry, upgradedCarry, type EarlierCarry } from '../../src/workflows/sessionCarry';

const input = resolveSessionInput({ task: 'carry me', model: 'agentd-sim', maxSteps: 40 });

describe('session carry', () => {
  it('passes the whole object on, one run further, and survives JSON', () => {
    const carry = firstRunCarry(input);
    carry.step = 7;
    carry.compaction.byStrategy.summary = 2;
    const next = nextRunCarry(carry);
    assert.equal(next.runs, 2);
    assert.deepEqual(JSON.parse(JSON.stringify(next)), { ...carry, runs: 2 });
  });

  it('fills in what carries from earlier versions lack, and reads `done` as `byStrategy`', () => {
    const { affinity: _affinity, budget: _budget, ...current } = firstRunCarry(input);
    const { byStrategy: _byStrategy, ...compaction } = current.compaction;
    const earlier: EarlierCarry = { ...current, runs: 3, compaction: { ...compaction, done: { prune: 1, summary: 4, truncate: 0 } } };
    const upgraded = upgradedCarry(earlier, input);
    assert.equal(upgraded.runs, 3);
    assert.deepEqual(upgraded.compaction.byStrategy, { prune: 1, summary: 4, truncate: 0 });
    assert.equal('done' in upgraded.compaction, false);
    assert.deepEqual(upgraded.affinity, { failovers: 0 });
    assert.equal(upgraded.budget.limits.maxSteps, 40);
    assert.equal(upgraded.budget.approvals, 0);
  });

  it('keeps a current carry as it is', () => {
    const carry = { ...firstRunCarry(input), runs: 5 };
    carry.budget.approvals = 2;
    carry.affinity.failovers = 1;
    assert.deepEqual(upgradedCarry(carry, input), carry);
  });
});
