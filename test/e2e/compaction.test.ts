/**
 * Compaction on a real dev server against the strict simulator at a 32K window: long autonomous
 * sessions never send an oversize request, and failures, overflows and manual requests behave.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findTemporalCli } from '../../src/devServer/temporalCli';
import type { CompactionNotice, CompactNowResult, SessionState } from '../../src/session/state';
import { totalRejected } from '../../src/simulator/stats';
import { eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

const run = promisify(execFile);
const WINDOW = 32_768;

describe('compaction', () => {
  const stack = suiteStack();

  it('runs 200+ steps with 2-40 KB outputs at 32K without one oversize request', async () => {
    await stack.withWorker({ contextWindow: WINDOW }, async (simulator) => {
      const handle = await stack.sessions.start({
        task: 'long autonomous job [sim steps=210 output=2000-40000]',
        model: 'agentd-sim',
        contextWindow: WINDOW,
        maxSteps: 400,
      });
      const result = await stack.sessions.result(handle.workflowId);
      const state = await stack.sessions.state(handle.workflowId);
      const stats = simulator.stats();
      console.log(
        `compaction at 32K: ${result.steps} steps, ${stats.requests} requests, max prompt ${stats.maxPromptTokens} tokens, ` +
          `compactions ${JSON.stringify(state.compaction.byStrategy)}, summary requests ${stats.summaryRequests}`,
      );
      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, 211);
      assert.equal(totalRejected(stats), 0, `rejections: ${JSON.stringify(stats.rejected)}`);
      assert.ok(stats.maxPromptTokens <= WINDOW);
      assert.ok(state.compaction.byStrategy.summary > 0, 'summary compactions happened');
      // Each lands at the target, half the trigger (DESIGN §5 "Land with room"); a prune only where it was the cheaper.
      for (const notice of state.compaction.notices.filter((done) => done.failed === undefined)) {
        assert.ok(notice.tokensAfter <= state.compaction.trigger / 2, `step ${notice.step}: ${notice.tokensAfter} tokens after`);
        if (notice.strategy === 'prune') assert.ok(notice.cache && notice.cache.costPerStep <= (notice.cache.summaryCostPerStep ?? Infinity));
      }
      assert.equal(state.compaction.breaker.open, false);
      assert.ok(state.context.tokens < state.compaction.trigger);

      // Outputs over a quarter of the window were cut at once; the agent paged through an original.
      const rows = await stack.store.list(handle.workflowId);
      const pages = rows.filter(
        (row) => row.message.role === 'tool' && row.meta.toolName === 'read_output' && !row.meta.isError,
      );
      assert.ok(pages.length > 0, 'read_output served an original');
      assert.match(pages[0]!.message.content ?? '', /test case \d+: ok/);
    });
  });

  // Models that do not write agentd's sections: their summaries are accepted as written; one that
  // answers longer than its input is cut to its budget without a model. One that cannot give a usable
  // summary (a refusal) opens the breaker, and the session still finishes with no request over the window.
  for (const summarizer of ['prose', 'headings', 'lossy', 'refusal', 'long'] as const) {
    it(`runs 120 steps at 32K with the '${summarizer}' summarizer: no request over the window, every summary call billed`, async () => {
      await stack.withWorker({ contextWindow: WINDOW, summarizer }, async (simulator) => {
        const handle = await stack.sessions.start({
          task: `long job, ${summarizer} summaries [sim steps=120 output=2000-20000]`,
          model: 'agentd-sim',
          contextWindow: WINDOW,
          maxSteps: 400,
        });
        const result = await stack.sessions.result(handle.workflowId);
        const state = result.finalState!;
        const stats = simulator.stats();
        console.log(
          `${summarizer} summarizer at 32K: ${result.steps} steps, max prompt ${stats.maxPromptTokens} tokens, ` +
            `compactions ${JSON.stringify(state.compaction.byStrategy)}, summary requests answered ${stats.summaryRequests}, ` +
            `spend.summary ${JSON.stringify(state.spend.summary)}, breaker ${JSON.stringify(state.compaction.breaker)}`,
        );
        assert.equal(result.outcome, 'finished');
        assert.equal(totalRejected(stats), 0, `rejections: ${JSON.stringify(stats.rejected)}`);
        assert.ok(stats.maxPromptTokens <= WINDOW);
        // Every request the endpoint answered is in the ledger, rejected summaries included.
        assert.equal(state.spend.summary.calls, stats.summaryRequests);
        assert.equal(state.spend.summary.promptTokens, stats.summaryPromptTokens);
        assert.ok(stats.summaryRequests > 0);
        if (summarizer === 'refusal') {
          assert.equal(state.compaction.byStrategy.summary, 0);
          assert.ok(state.compaction.notices.some((notice) => notice.failed !== undefined), 'the rejections are in the notices');
          // Rejections are not retried as they are: one request per failed compaction (no chunking at this size).
          const failures = state.compaction.noticesTotal - state.compaction.compactions;
          assert.ok(stats.summaryRequests <= failures, `${stats.summaryRequests} summary requests for ${failures} failed compactions`);
          // Successful prunes in between do not hide that the summarizer never works.
          assert.equal(state.compaction.breaker.open, true);
          assert.match(state.compaction.warning ?? '', /^breaker OPEN since step \d+: \d+ compactions failed \(refusal/);
        } else {
          if (summarizer === 'long') {
            const cut = state.compaction.notices.filter((notice) => notice.summaryTrimmedFromTokens !== undefined);
            assert.ok(cut.length > 0, 'summaries over their budget were cut down to it');
          }
          assert.ok(state.compaction.byStrategy.summary > 0, 'summaries were accepted');
          assert.equal(state.compaction.breaker.open, false);
          assert.equal(state.compaction.warning, undefined);
        }
      });
    });
  }

  it('with a summarizer that always fails: the breaker opens, half-opens after the cool-down, the context stays under the trigger', async () => {
    const sessionId = `breaker-${Date.now()}`;
    const seen = new Map<string, CompactionNotice>();
    let opened: SessionState | undefined;
    await stack.withWorker({ contextWindow: WINDOW, summarizer: 'fail', outputBytes: { min: 2000, max: 6000 } }, async (simulator) => {
      await stack.sessions.start(
        { task: 'job with a broken summarizer [sim steps=150]', model: 'agentd-sim', contextWindow: WINDOW, maxSteps: 400, awaitMessagesSeconds: 300 },
        { sessionId },
      );
      // Notices are kept 20 at a time: collect them as they come, as `--follow` does.
      const waiting = await eventually(async () => {
        const state = await stack.sessions.state(sessionId);
        for (const notice of state.compaction.notices) seen.set(`${notice.at} ${notice.step} ${notice.strategy} ${notice.failed ?? ''}`, notice);
        if (state.compaction.breaker.open) opened ??= state;
        return state.status === 'waiting_for_message' ? state : undefined;
      }, 'task turn finished', 300_000);
      assert.ok(opened, 'the breaker opened');
      assert.equal(opened.compaction.breaker.consecutiveFailures >= 3, true);
      const openedAt = opened.compaction.breaker.openedAtStep!;
      assert.equal(opened.compaction.breaker.retryAtStep, openedAt + 20, 'the first retry comes after the default cool-down');
      const notices = [...seen.values()];
      const retries = notices.filter((notice) => notice.halfOpenRetry === true);
      console.log(
        `always-failing summarizer: opened at step ${openedAt}, half-open retries at steps ${retries.map((notice) => notice.step).join(', ')}, ` +
          `breaker at the end ${JSON.stringify(waiting.compaction.breaker)}, ${JSON.stringify(waiting.compaction.byStrategy)}`,
      );
      assert.ok(retries.length > 0, 'a half-open retry is visible in the notices');
      assert.ok(retries.every((notice) => notice.failed !== undefined && notice.step >= openedAt + 20));
      // The first retry runs at its step, not at the next trigger after it.
      assert.equal(retries[0]!.step, openedAt + 20, `first retry at step ${retries[0]!.step}`);
      // Failed retries doubled the cool-down.
      assert.ok((waiting.compaction.breaker.coolDownSteps ?? 0) >= 40, JSON.stringify(waiting.compaction.breaker));
      const truncations = notices.filter((notice) => notice.strategy === 'truncate');
      assert.ok(truncations.length > 0, 'the session went on by truncation');
      // Down to the target, half the trigger, so the next truncation is steps away.
      for (const notice of truncations) assert.ok(notice.tokensAfter <= waiting.compaction.trigger / 2, `truncated to ${notice.tokensAfter}`);
      // No summary was ever written, yet each truncation left a session memory of what it dropped.
      const memories = (await stack.store.list(sessionId)).filter((row) => row.meta.kind === 'memory');
      assert.ok(memories.length >= truncations.length, `${memories.length} memories for ${truncations.length} truncations`);
      const newest = memories.at(-1)?.message.content ?? '';
      assert.match(newest, /Dropped without a summary \(emergency truncation\): seqs \d+/);
      assert.match(newest, /## Files written or edited/);
      assert.doesNotMatch(newest, /Summarized \(the summary below/, 'no summary to speak of');
      assert.match(waiting.compaction.warning ?? '', /^breaker OPEN since step \d+: \d+ compactions failed \(summarizer unavailable/);
      assert.equal(totalRejected(simulator.stats()) - simulator.stats().rejected.injected, 0, 'no oversize or malformed request');
      assert.ok(simulator.stats().maxPromptTokens <= WINDOW);
      assert.equal(waiting.spend.summary.calls, 0, 'nothing was answered');
      assert.ok((waiting.spend.summary.possiblyBilledCalls ?? 0) > 0, 'retried requests are counted as possibly billed');
    });
    // A healthy summarizer now: a manual compaction runs although the breaker is open, and closes it.
    await stack.withWorker({ contextWindow: WINDOW }, async () => {
      const result: CompactNowResult = await stack.sessions.handle(sessionId).executeUpdate('compactNow');
      assert.equal(result.compacted, true, JSON.stringify(result));
      assert.equal(result.notice?.reason, 'manual');
      assert.equal(result.notice?.breaker, 'closed');
      const state = await stack.sessions.state(sessionId);
      assert.deepEqual(state.compaction.breaker, { consecutiveFailures: 0, open: false });
      assert.equal(state.compaction.warning, undefined);
      await stack.sessions.handle(sessionId).cancel();
    });
  });

  it('compacts reactively when the real window is smaller than the declared one', async () => {
    await stack.withWorker({ contextWindow: 14_000, outputBytes: { min: 2000, max: 6000 } }, async (simulator) => {
      const handle = await stack.sessions.start({
        task: 'job on a smaller real window [sim steps=80]',
        model: 'agentd-sim',
        contextWindow: WINDOW,
      });
      const result = await stack.sessions.result(handle.workflowId);
      const state: SessionState = await stack.sessions.state(handle.workflowId);
      assert.equal(result.outcome, 'finished');
      assert.ok(simulator.stats().rejected.context_length_exceeded > 0, 'the simulator did refuse an oversize request');
      assert.ok(
        state.compaction.notices.some((notice) => notice.reason === 'reactive' && !notice.failed),
        'a reactive compaction ran',
      );
    });
  });

  it('fails at once, with a notice, when the model refuses a context that nothing can shrink', async () => {
    // The task alone is over the endpoint's real window: nothing older than the newest step, nothing to drop.
    const task = `${'Read every line of this brief before you start. '.repeat(250)} [sim steps=3]`;
    await stack.withWorker({ contextWindow: 1_500 }, async (simulator) => {
      const handle = await stack.sessions.start({ task, model: 'agentd-sim', contextWindow: WINDOW });
      const failure: unknown = await stack.sessions.result(handle.workflowId).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failure instanceof Error, 'the session failed');
      assert.match(String((failure.cause as Error | undefined)?.message), /nothing is left to compact or drop/);
      assert.equal(simulator.stats().rejected.context_length_exceeded, 1, 'the refused request was not sent again');
      const state = await stack.sessions.state(handle.workflowId);
      assert.equal(state.status, 'failed');
      const notice = state.compaction.notices.at(-1);
      assert.equal(notice?.reason, 'reactive');
      assert.match(notice?.failed ?? '', /nothing is left to compact or drop: what is left \(the pinned system prompt and task, any summary and session memory, the newest step\) is about \d+ tokens/);
    });
  });

  it('answers compactNow from the stock temporal CLI with the compaction event', async () => {
    await stack.withWorker({ contextWindow: WINDOW }, async () => {
      const handle = await stack.sessions.start({
        task: 'short job then wait [sim steps=16 output=4000-9000]',
        model: 'agentd-sim',
        contextWindow: WINDOW,
        awaitMessagesSeconds: 120,
      });
      await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.status === 'waiting_for_message' ? state : undefined;
      }, 'waiting_for_message', 60_000);
      const cli = findTemporalCli();
      assert.ok(cli);
      const { stdout } = await run(cli, [
        'workflow', 'update', 'execute', '--workflow-id', handle.workflowId, '--name', 'compactNow',
        '--address', stack.temporal.address, '--output', 'json',
      ]);
      const answer = JSON.parse(stdout) as { result: CompactNowResult };
      assert.equal(answer.result.compacted, true, stdout);
      assert.equal(answer.result.notice?.reason, 'manual');
      assert.ok(answer.result.notice!.tokensAfter < answer.result.notice!.tokensBefore);
      await handle.cancel();
      // A finished session refuses: the validator rejects the update.
      await assert.rejects(handle.executeUpdate('compactNow'));
    });
  });
});
