/** The pure renderers of `agentd watch` and `agentd list`. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changedLines, freshNotices, renderGauge, windowLabel } from '../src/cli/renderWatch';
import { renderSessionTable } from '../src/cli/renderList';
import type { CompactionNotice, SessionState } from '../src/session/state';

describe('renderGauge', () => {
  test('fills the window share and marks the trigger', () => {
    assert.equal(renderGauge(78_080, 128_000, 96_000), '[████████████░░░|░░░░░] 61% of 128K, trigger 75%');
    assert.equal(renderGauge(0, 32_768, 16_384, 10), '[░░░░░|░░░░░] 0% of 33K, trigger 50%');
  });
  test('an estimate over the window fills every cell', () => {
    assert.equal(renderGauge(200_000, 100_000, 80_000, 5), '[████|█] 200% of 100K, trigger 80%');
  });
  test('window labels', () => {
    assert.equal(windowLabel(1_000_000), '1M');
    assert.equal(windowLabel(512), '512');
  });
});

describe('freshNotices', () => {
  const notice = (step: number): CompactionNotice => ({
    at: '2026-01-01T00:00:00.000Z', turn: 1, step, reason: 'auto', strategy: 'summary',
    tokensBefore: 20_000, tokensAfter: 9_000, coveredSeqs: [], truncatedSeqs: [],
  });
  const stateWith = (notices: CompactionNotice[], total: number) =>
    ({ compaction: { notices, noticesTotal: total } }) as unknown as SessionState;

  test('each notice once, and a gap says how many were missed', () => {
    const first = freshNotices(stateWith([notice(3)], 1), 0);
    assert.deepEqual(first.lines, ['context compacted: 20.0k → 9.0k (summary, step 3, auto)']);
    const again = freshNotices(stateWith([notice(3)], 1), first.seen);
    assert.deepEqual(again.lines, []);
    const gap = freshNotices(stateWith([notice(9)], 4), first.seen);
    assert.equal(gap.lines[0], '(2 earlier compaction notice(s) not shown)');
    assert.match(gap.lines[1] ?? '', /step 9/);
    assert.equal(gap.seen, 4);
  });
});

test('changedLines prints only what moved', () => {
  assert.deepEqual(changedLines(['a', 'b', 'c'], ['a', 'B', 'c', 'd']), ['B', 'd']);
});

test('the list table has a column per figure and a line per pause', () => {
  const table = renderSessionTable([
    {
      sessionId: 'agent-1', status: 'RUNNING', sessionStatus: 'waiting_for_approval', startedAt: '2026-01-01T00:00:00.000Z',
      step: 5, context: { tokens: 12_800, window: 128_000 }, costUsd: 0.0123, paused: 'max_steps: 5 steps taken, maxSteps 5',
    },
    { sessionId: 'agent-2', status: 'FAILED', startedAt: '2026-01-01T00:00:00.000Z' },
  ]).split('\n');
  assert.match(table[0] ?? '', /^SESSION +STATUS +STEPS +CONTEXT +COST +STARTED$/);
  assert.match(table[1] ?? '', /^agent-1 +waiting_for_approval +5 +12\.8k\/128k 10% +\$0\.0123 +2026/);
  assert.match(table[2] ?? '', /^agent-2 +failed +- +- +- +2026/);
  assert.equal(table[3], '  agent-1 paused: max_steps: 5 steps taken, maxSteps 5');
});
