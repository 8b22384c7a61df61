/**
 * DESIGN §5 "Summary requests continue the session", on a real dev server with the simulator over
 * HTTP: a summary request is the previous request word for word plus one instruction naming the
 * messages to summarize, so the prompt cache serves it; `summaryRequest: 'standalone'` is the
 * earlier request, which shares only the pinned prefix.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSummaryRange } from '../../src/model/summaryFormat';
import type { ObservedRequest } from '../../src/simulator/observer';
import type { SummarizerBehaviour } from '../../src/simulator/options';
import type { SessionState } from '../../src/session/state';
import { startStack, type Stack } from '../../harness/stack';

const WINDOW = 32_768;

describe('summary requests', () => {
  let stack: Stack;
  /** The cached share of the summary calls when they continue the session, for the standalone test to compare with. */
  let continuedShare = 0;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.stop();
  });

  async function runSession(summaryRequest: 'continue' | 'standalone', summarizer: SummarizerBehaviour = 'sectioned'): Promise<{ seen: ObservedRequest[]; state: SessionState }> {
    const seen: ObservedRequest[] = [];
    return stack.withWorker({ contextWindow: WINDOW, summarizer, observe: (request) => seen.push(request) }, async () => {
      const handle = await stack.sessions.start({
        task: `summary request ${summaryRequest} [sim steps=80 output=3000-9000]`,
        model: 'agentd-sim',
        contextWindow: WINDOW,
        maxSteps: 150,
        compaction: { summaryRequest },
      });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');
      return { seen, state: result.finalState! };
    });
  }

  // The request is agentd's, whatever the model answers: the same under a summarizer that writes
  // its own JSON, and one that answers far past max_tokens (its summaries are cut to the budget).
  for (const summarizer of ['sectioned', 'json', 'verbose'] as const) {
    it(`repeats the previous request word for word, names the range, and is served from the cache (${summarizer} summarizer)`, async () => {
      const { seen, state } = await runSession('continue', summarizer);
      const summaries = seen.filter((request) => request.summarizing);
      assert.ok(summaries.length >= 2, `${summaries.length} summary requests`);
      for (const request of summaries) {
        const previous = seen.filter((earlier) => earlier.index < request.index && !earlier.summarizing).at(-1);
        assert.ok(previous, 'an agent request came before');
        assert.deepEqual(request.messages.slice(0, -1), previous.messages, `summary request ${request.index} repeats request ${previous.index}`);
        const range = parseSummaryRange(request.messages.at(-1)?.content ?? '');
        assert.ok(range, 'the instruction names the range');
        assert.equal(range.total, previous.messages.length);
        // The system prompt and the task are pinned; the newest step, kept verbatim, came after this request.
        assert.ok(range.first >= 3 && range.last <= range.total, JSON.stringify(range));
      }
      const done = state.compaction.notices.filter((notice) => notice.strategy === 'summary' && notice.failed === undefined);
      assert.ok(done.length > 0 && done.every((notice) => notice.summaryRequest === 'continued'), 'every summary was asked for as a continuation');
      const summary = state.spend.summary;
      const share = summary.cachedTokens / summary.promptTokens;
      assert.ok(share >= 0.9, `summary calls ${summary.cachedTokens} of ${summary.promptTokens} prompt tokens cached`);
      if (summarizer === 'sectioned') continuedShare = share;
      if (summarizer === 'verbose') assert.ok(done.every((notice) => notice.summaryTrimmedFromTokens !== undefined), 'each long answer was cut to its budget');
    });
  }

  it("'standalone' sends the pinned messages, the region and the instruction, and shares only the pinned prefix", async () => {
    const { seen, state } = await runSession('standalone');
    const summaries = seen.filter((request) => request.summarizing);
    assert.ok(summaries.length >= 1);
    for (const request of summaries) {
      const previous = seen.filter((earlier) => earlier.index < request.index && !earlier.summarizing).at(-1)!;
      assert.deepEqual(request.messages.slice(0, 2), previous.messages.slice(0, 2), 'the pinned system prompt and task come first');
      assert.equal(parseSummaryRange(request.messages.at(-1)?.content ?? ''), undefined, 'no range: it asks for everything above');
    }
    const done = state.compaction.notices.filter((notice) => notice.strategy === 'summary' && notice.failed === undefined);
    assert.ok(done.length > 0 && done.every((notice) => notice.summaryRequest === 'standalone'));
    // After the first compaction a standalone request no longer follows the context as sent (memory, summary, region).
    const summary = state.spend.summary;
    assert.ok(summary.cachedTokens / summary.promptTokens < continuedShare, `standalone: ${summary.cachedTokens} of ${summary.promptTokens} cached`);
  });
});
