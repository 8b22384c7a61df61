/**
 * Compaction on a real dev server against the strict simulator at a 32K window: long autonomous
 * sessions never send an oversize request, and failures, overflows and manual requests behave.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findTemporalCli } from '../src/devServer/temporalCli';
import type { CompactNowResult, SessionState } from '../src/session/state';
import { totalRejected } from '../src/simulator/stats';
import { eventually, startStack, type Stack } from './helpers/stack';

const run = promisify(execFile);
const WINDOW = 32_768;

describe('compaction', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.stop();
  });

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
      assert.ok(state.compaction.byStrategy.prune > 0, 'prune-only compactions happened');
      assert.ok(state.compaction.byStrategy.summary > 0, 'summary compactions happened');
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

  it('opens the breaker when the summarizer always fails, and still completes by truncation', async () => {
    const sessionId = `breaker-${Date.now()}`;
    let summaryAttemptsWhenOpened = 0;
    await stack.withWorker({ contextWindow: WINDOW, summarizer: 'fail', outputBytes: { min: 2000, max: 6000 } }, async (simulator) => {
      await stack.sessions.start(
        { task: 'job with a broken summarizer [sim steps=150]', model: 'agentd-sim', contextWindow: WINDOW, maxSteps: 400, awaitMessagesSeconds: 300 },
        { sessionId },
      );
      const opened = await eventually(async () => {
        const state = await stack.sessions.state(sessionId);
        return state.compaction.breaker.open ? state : undefined;
      }, 'breaker open', 120_000);
      summaryAttemptsWhenOpened = simulator.stats().rejected.injected;
      assert.equal(opened.compaction.breaker.consecutiveFailures, 3);
      const waiting = await eventually(async () => {
        const state = await stack.sessions.state(sessionId);
        return state.status === 'waiting_for_message' ? state : undefined;
      }, 'task turn finished', 120_000);
      assert.equal(simulator.stats().rejected.injected, summaryAttemptsWhenOpened, 'no summary call after the breaker opened');
      assert.ok(waiting.compaction.byStrategy.truncate > 0, 'the session went on by truncation');
      assert.equal(totalRejected(simulator.stats()) - simulator.stats().rejected.injected, 0, 'no oversize or malformed request');
      assert.ok(simulator.stats().maxPromptTokens <= WINDOW);
    });
    // A healthy summarizer now: a manual compaction runs although the breaker is open, and closes it.
    await stack.withWorker({ contextWindow: WINDOW }, async () => {
      const result: CompactNowResult = await stack.sessions.handle(sessionId).executeUpdate('compactNow');
      assert.equal(result.compacted, true, JSON.stringify(result));
      assert.equal(result.notice?.reason, 'manual');
      const state = await stack.sessions.state(sessionId);
      assert.deepEqual(state.compaction.breaker, { consecutiveFailures: 0, open: false });
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
