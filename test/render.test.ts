/** The status, notice and result lines an operator reads: the breaker's state must be in them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNotice, renderResult } from '../src/cli/render';
import type { CompactionNotice, SessionResult } from '../src/session/state';

const WARNING = 'breaker OPEN since step 7: 3 compactions failed (refusal, refusal, refusal); running on pruning and truncation; next retry at step 27';

const notice = (more: Partial<CompactionNotice>): CompactionNotice => ({
  at: '2026-01-01T00:00:00.000Z', turn: 1, step: 27, reason: 'auto', strategy: 'summary',
  tokensBefore: 16_500, tokensAfter: 9_000, coveredSeqs: [], truncatedSeqs: [], ...more,
});

describe('breaker in the CLI lines', () => {
  test('a notice says it was the half-open retry and what it did to the breaker', () => {
    assert.equal(
      renderNotice(notice({ halfOpenRetry: true, failed: 'summarize failed: refused', tokensAfter: 16_500 })),
      'compaction failed (summary, step 27, auto, half-open retry): summarize failed: refused',
    );
    assert.equal(
      renderNotice(notice({ halfOpenRetry: true, breaker: 'closed' })),
      'context compacted: 16.5k → 9.0k (summary, step 27, auto, half-open retry); breaker closed',
    );
    assert.equal(renderNotice(notice({ step: 7, failed: 'refused', breaker: 'opened' })), 'compaction failed (summary, step 7, auto): refused; breaker OPEN');
  });

  test("the final line carries the breaker's warning, and only when there is one", () => {
    const result = (warning?: string) =>
      ({
        sessionId: 'agent-1', outcome: 'finished', answer: 'done', turns: 1, steps: 120,
        usage: { modelCalls: 120, promptTokens: 1_000_000, completionTokens: 9000 },
        finalState: { compaction: { ...(warning ? { warning } : {}) } },
      }) as unknown as SessionResult;
    const lines = renderResult(result(WARNING)).split('\n');
    assert.equal(lines[1], `warning: ${WARNING}`);
    assert.equal(renderResult(result()).split('\n').length, 2);
  });
});
