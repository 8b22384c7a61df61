/** The pure renderers of `agentd watch` and `agentd list`. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changedLines, freshNotices, renderGauge, renderWatchFrame, windowLabel } from '../../src/cli/renderWatch';
import { watchSession } from '../../src/cli/watch';
import { renderSessionTable } from '../../src/cli/renderList';
import { NO_SPEND, reportSpend } from '../../src/policy/spend';
import type { CompactionNotice, SessionState } from '../../src/session/state';

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

test('the list table has a column per figure, a dash for what a session never set', () => {
  const table = renderSessionTable([
    {
      sessionId: 'agent-1', runId: 'r1', runStatus: 'RUNNING', status: 'waiting_for_approval', startedAt: '2026-01-01T00:00:00.000Z',
      step: 5, contextFill: 0.1, costUsd: 0.01, model: 'gpt-4o-mini',
    },
    { sessionId: 'agent-2', runId: 'r2', runStatus: 'FAILED', status: 'failed', startedAt: '2026-01-01T00:00:00.000Z' },
  ]).split('\n');
  assert.match(table[0] ?? '', /^SESSION +STATUS +STEPS +CONTEXT +COST +MODEL +STARTED$/);
  assert.match(table[1] ?? '', /^agent-1 +waiting_for_approval +5 +10% +\$0\.01 +gpt-4o-mini +2026/);
  assert.match(table[2] ?? '', /^agent-2 +failed +- +- +- +- +2026/);
  assert.equal(table.length, 3);
});

describe('watchSession on a terminal', () => {
  const state = (step: number, status: SessionState['status']): SessionState => ({
    sessionId: 'agent-t', status, runs: 1, model: 'agentd-sim', turn: 1, step, maxSteps: 10, maxTurns: 10,
    context: { tokens: 1000 * step, window: 32_768, messages: 2 + 2 * step },
    usage: { modelCalls: step, promptTokens: 1000 * step, completionTokens: 50 * step },
    spend: {
      agent: reportSpend({ calls: step, promptTokens: 1000 * step, completionTokens: 50 * step, cachedTokens: 500 * step, costUsd: 0.001 * step }),
      summary: reportSpend(NO_SPEND),
      totalTokens: 1050 * step, costUsd: 0.001 * step, cacheHitRatio: 0.5, price: { inputPerMillion: 1, outputPerMillion: 1 },
    },
    budget: { maxSteps: 10, maxRepeatedToolCalls: 4, approvalTimeoutSeconds: 0, approvals: 0 },
    compaction: { trigger: 16_384, breaker: { consecutiveFailures: 0, open: false }, compactions: 0, byStrategy: { prune: 0, summary: 0, truncate: 0 }, noticesTotal: 0, notices: [] },
    lastToolCalls: [{ step, name: 'list_files', seq: 2 * step + 1, isError: false }],
    pendingMessages: 0, warnings: [],
  });

  test("the frame's spend line has the cache-hit ratio", () => {
    const spendLine = renderWatchFrame(state(2, 'running')).find((line) => line.startsWith('spend'));
    assert.equal(spendLine, 'spend    2.0k prompt (1.0k cached) + 100 completion in 2 call(s); 50% cache hits; $0.0020');
  });

  test('redraws the frame in place and stops when the session ends', async () => {
    const states = [state(1, 'running'), state(2, 'completed')];
    let written = '';
    const last = await watchSession(async () => states.shift()!, 'agent-t', { write: (text) => void (written += text), isTTY: true }, { pollMs: 1 });
    assert.equal(last.status, 'completed');
    const firstFrame = renderWatchFrame(state(1, 'running'));
    // Back to the top of the first frame and clear, then the second frame.
    assert.ok(written.startsWith(`${firstFrame.join('\n')}\n\x1b[${firstFrame.length}F\x1b[J`), JSON.stringify(written.slice(0, 200)));
    assert.ok(written.endsWith(`${renderWatchFrame(state(2, 'completed')).join('\n')}\n`));
  });
});
