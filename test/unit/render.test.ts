/** The status, notice and result lines an operator reads: the breaker's state must be in them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderNotice, renderResult } from '../../src/cli/render';
import { renderSpend } from '../../src/cli/renderAmounts';
import { reportSpend, type CallSpend } from '../../src/policy/spend';
import type { CompactionNotice, SessionResult, SpendReport } from '../../src/session/state';

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

describe('cost in the CLI lines', () => {
  const spend = (more: Partial<CallSpend>): CallSpend => ({ calls: 1, promptTokens: 14_700, completionTokens: 174, cachedTokens: 12_000, costUsd: 0.0123, ...more });

  test("a summary's notice says what it cost; a prune's, which called no model, says nothing of cost", () => {
    assert.equal(
      renderNotice(notice({ spend: reportSpend(spend({})) })),
      'context compacted: 16.5k → 9.0k (summary, step 27, auto); summary cost 1 call(s) 14.7k prompt (12.0k cached) + 174 completion, $0.0123',
    );
    assert.equal(
      renderNotice(notice({ failed: 'refused', spend: reportSpend(spend({ possiblyBilledCalls: 1 })) })),
      'compaction failed (summary, step 27, auto): refused; summary cost 1 call(s) 14.7k prompt (12.0k cached) + 174 completion, 1 possibly billed, $0.0123',
    );
    const free = reportSpend(spend({ calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 }));
    assert.equal(renderNotice(notice({ strategy: 'prune', spend: free })), 'context compacted: 16.5k → 9.0k (prune, step 27, auto)');
  });

  test("the spend line has the session's cache-hit ratio, what summaries cost, and requests possibly billed", () => {
    const report = (agent: CallSpend, summary: CallSpend, priced = true): SpendReport => ({
      agent: reportSpend(agent), summary: reportSpend(summary), totalTokens: 0, costUsd: agent.costUsd + summary.costUsd,
      ...(priced ? { price: { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5 } } : {}),
    });
    const agent = spend({ calls: 23, promptTokens: 203_000, completionTokens: 1_600, cachedTokens: 178_000, costUsd: 0.148, possiblyBilledCalls: 1 });
    assert.equal(
      renderSpend(report(agent, spend({}))),
      '203k prompt (178k cached) + 1.6k completion in 23 call(s); summaries 1 call(s) 14.7k prompt (12.0k cached) + 174 completion, $0.0123; ' +
        '87% cache hits; 1 request(s) possibly billed, tokens unknown; $0.1603',
    );
    const unpriced = renderSpend(report(spend({ cachedTokens: 0, costUsd: 0 }), spend({ calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 }), false));
    assert.equal(unpriced, '14.7k prompt + 174 completion in 1 call(s); 0% cache hits; cost unknown (no price for this model)');
  });
});
