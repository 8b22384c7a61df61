/**
 * The operator's view on a real dev server: the spend ledger against what the simulator saw, each
 * budget guard pausing a session (no model calls while paused) until `approve` or cancellation,
 * and `agentd watch` / `list` / `approve` against live sessions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchSession } from '../../src/cli/watch';
import { SIMULATOR_PRICE } from '../../src/model/prices';
import { compactNowUpdate } from '../../src/session/definitions';
import type { SessionState } from '../../src/session/state';
import type { RunningSimulator } from '../../src/simulator/server';
import { agentdOn, eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

/** Long enough that a paused session which still called the model would be caught. */
const QUIET_MS = 1500;

describe('operator view', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  async function pausedState(sessionId: string, guard: string): Promise<SessionState> {
    return eventually(async () => {
      const state = await stack.sessions.state(sessionId);
      return state.status === 'waiting_for_approval' && state.paused?.guard === guard ? state : undefined;
    }, `${sessionId} paused by ${guard}`);
  }

  /** The session makes no model call while paused: the simulator's request count holds still. */
  async function assertQuiet(simulator: RunningSimulator, sessionId: string): Promise<void> {
    const before = simulator.stats().requests;
    await sleep(QUIET_MS);
    assert.equal(simulator.stats().requests, before, 'no model call while paused');
    assert.equal((await stack.sessions.state(sessionId)).status, 'waiting_for_approval');
  }

  it('keeps a spend ledger equal to what the endpoint billed, summaries apart, priced from the table', async () => {
    const window = 32_768;
    await stack.withWorker({ contextWindow: window }, async (simulator) => {
      const handle = await stack.sessions.start({
        task: 'ledger job [sim steps=30 output=6000-12000]',
        model: 'agentd-sim',
        contextWindow: window,
      });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');
      const { spend } = await stack.sessions.state(handle.workflowId);
      const stats = simulator.stats();
      console.log(`spend ledger: ${JSON.stringify(spend)}; simulator: ${stats.requests} requests, ${stats.summaryRequests} summaries`);

      assert.ok(spend.summary.calls > 0, 'the session summarized at least once');
      assert.equal(spend.agent.calls + spend.summary.calls, stats.requests);
      assert.equal(spend.summary.calls, stats.summaryRequests);
      assert.equal(spend.agent.promptTokens + spend.summary.promptTokens, stats.totalPromptTokens);
      assert.equal(spend.agent.completionTokens + spend.summary.completionTokens, stats.totalCompletionTokens);
      assert.equal(spend.summary.promptTokens, stats.summaryPromptTokens);
      assert.equal(spend.summary.completionTokens, stats.summaryCompletionTokens);
      assert.equal(spend.agent.cachedTokens + spend.summary.cachedTokens, stats.totalCachedTokens);
      assert.ok(spend.agent.cachedTokens > 0, 'the shared prefix was reported as cached');
      assert.equal(spend.totalTokens, stats.totalPromptTokens + stats.totalCompletionTokens);

      // The cost, recomputed here from the simulator's nominal price and its own counts.
      assert.deepEqual(spend.price, SIMULATOR_PRICE);
      const fresh = stats.totalPromptTokens - stats.totalCachedTokens;
      const expected =
        (fresh * SIMULATOR_PRICE.inputPerMillion +
          stats.totalCachedTokens * (SIMULATOR_PRICE.cachedInputPerMillion ?? 0) +
          stats.totalCompletionTokens * SIMULATOR_PRICE.outputPerMillion) /
        1e6;
      assert.ok(Math.abs(spend.costUsd - expected) < 1e-9, `cost ${spend.costUsd} vs ${expected}`);
      assert.ok(result.spend && Math.abs(result.spend.costUsd - spend.costUsd) < 1e-12, 'the result carries the ledger');
    });
  });

  it('pauses at maxSteps without model calls, refuses a too-small approval, and goes on after approve', async () => {
    await stack.withWorker({}, async (simulator) => {
      const handle = await stack.sessions.start({ task: 'step guard [sim steps=6]', model: 'agentd-sim', maxSteps: 3 });
      const paused = await pausedState(handle.workflowId, 'max_steps');
      assert.equal(paused.step, 3);
      assert.match(paused.paused?.reason ?? '', /3 steps taken, maxSteps 3/);
      await assertQuiet(simulator, handle.workflowId);
      // A manual compaction is served while paused instead of waiting for the operator.
      const manual = await stack.sessions.handle(handle.workflowId).executeUpdate(compactNowUpdate);
      assert.equal(manual.compacted, false);
      assert.equal((await stack.sessions.state(handle.workflowId)).status, 'waiting_for_approval');

      await assert.rejects(stack.sessions.approve(handle.workflowId, { maxSteps: 3 }), (error: Error) =>
        /maxSteps: still exhausted/.test(`${error.message} ${(error.cause as Error | undefined)?.message ?? ''}`),
      );
      const approved = await stack.sessions.approve(handle.workflowId, { maxSteps: 20 });
      assert.equal(approved.budget.maxSteps, 20);
      assert.equal(approved.budget.approvals, 1);
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, 7);
    });
  });

  it('pauses on billed tokens and on cost, and goes on after approve with a raised limit', async () => {
    await stack.withWorker({}, async (simulator) => {
      const tokens = await stack.sessions.start({ task: 'token guard [sim steps=5]', model: 'agentd-sim', maxTotalTokens: 2500 });
      const cost = await stack.sessions.start({ task: 'cost guard [sim steps=5]', model: 'agentd-sim', maxCostUsd: 0.003 });
      const byTokens = await pausedState(tokens.workflowId, 'max_total_tokens');
      assert.ok(byTokens.spend.totalTokens >= 2500);
      const byCost = await pausedState(cost.workflowId, 'max_cost_usd');
      assert.ok(byCost.spend.costUsd >= 0.003);
      assert.ok(byCost.step < 6, 'it paused before the end');
      await assertQuiet(simulator, tokens.workflowId);
      assert.equal((await stack.sessions.state(cost.workflowId)).step, byCost.step, 'no step while paused');

      await stack.sessions.approve(tokens.workflowId, { maxTotalTokens: 1_000_000 });
      await stack.sessions.approve(cost.workflowId, { maxCostUsd: 10 });
      assert.equal((await stack.sessions.result(tokens.workflowId)).outcome, 'finished');
      assert.equal((await stack.sessions.result(cost.workflowId)).outcome, 'finished');
    });
  });

  it('pauses a session that repeats one call, goes on after approve, and the normal script never trips it', async () => {
    await stack.withWorker({}, async (simulator) => {
      const sameCall = '[sim call list_files {"path":"."}]';
      const stuck = await stack.sessions.start({
        task: ['stuck agent [sim steps=5]', ...Array.from({ length: 5 }, () => sameCall)].join('\n'),
        model: 'agentd-sim',
        maxRepeatedToolCalls: 3,
      });
      const paused = await pausedState(stuck.workflowId, 'repeated_tool_call');
      assert.equal(paused.step, 3);
      assert.match(paused.paused?.reason ?? '', /list_files called 3 times in a row/);
      await assertQuiet(simulator, stuck.workflowId);
      // Approving acknowledges the run; the two repeats left are below the limit again.
      await stack.sessions.approve(stuck.workflowId);
      assert.equal((await stack.sessions.result(stuck.workflowId)).outcome, 'finished');

      const normal = await stack.sessions.start({ task: 'normal agent [sim steps=40]', model: 'agentd-sim', maxRepeatedToolCalls: 2 });
      const result = await stack.sessions.result(normal.workflowId);
      assert.equal(result.outcome, 'finished');
      assert.equal((await stack.sessions.state(normal.workflowId)).budget.approvals, 0);
    });
  });

  it('cancels a paused session, and ends one that is not approved in time', async () => {
    await stack.withWorker({}, async () => {
      const cancelled = await stack.sessions.start({ task: 'cancel me [sim steps=5]', model: 'agentd-sim', maxSteps: 2 });
      await pausedState(cancelled.workflowId, 'max_steps');
      const cancel = await agentd('cancel', cancelled.workflowId);
      assert.equal(cancel.code, 0, cancel.stderr);
      await assert.rejects(stack.sessions.result(cancelled.workflowId), /cancel/i);
      const afterCancel = await stack.sessions.state(cancelled.workflowId);
      assert.equal(afterCancel.status, 'cancelled');
      assert.equal(afterCancel.paused, undefined, 'a cancelled session waits for no approval');
      const status = await agentd('status', cancelled.workflowId);
      assert.doesNotMatch(status.stdout, /agentd approve/);
      // An approval of a session that is not paused is refused for good, not as a retryable error.
      const waiting = await stack.sessions.start({ task: 'wait for me [sim steps=1]', model: 'agentd-sim', awaitMessagesSeconds: 120 });
      await eventually(async () => {
        const state = await stack.sessions.state(waiting.workflowId);
        return state.status === 'waiting_for_message' ? state : undefined;
      }, 'waiting_for_message');
      await assert.rejects(stack.sessions.approve(waiting.workflowId, { maxSteps: 10 }), (error: Error) => {
        const cause = error.cause as { nonRetryable?: boolean; type?: string } | undefined;
        assert.equal(cause?.nonRetryable, true, String(error));
        assert.equal(cause?.type, 'UpdateRefused');
        return true;
      });
      await waiting.terminate('test over');

      // A terminated workflow keeps answering its last state; watch notices and exits 1.
      const terminated = await stack.sessions.start({ task: 'terminate me [sim steps=5]', model: 'agentd-sim', maxSteps: 1 });
      await pausedState(terminated.workflowId, 'max_steps');
      await stack.sessions.handle(terminated.workflowId).terminate('test');
      const watched = await agentd('watch', terminated.workflowId, '--interval', '200');
      assert.equal(watched.code, 1, watched.stderr);
      assert.match(watched.stdout, /terminated[\s\S]*the workflow closed without the session ending \(terminated\)/);
      // status and list say it ended, though the workflow's last state was waiting_for_approval.
      const shown = await agentd('status', terminated.workflowId, '--json');
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal((JSON.parse(shown.stdout) as { status: string }).status, 'terminated');
      const paused = await agentd('list', '--status', 'waiting_for_approval', '--json');
      assert.ok(!paused.stdout.includes(terminated.workflowId), paused.stdout);

      const expired = await stack.sessions.start({
        task: 'nobody approves [sim steps=5]',
        model: 'agentd-sim',
        maxTotalTokens: 1500,
        approvalTimeoutSeconds: 2,
      });
      const result = await stack.sessions.result(expired.workflowId);
      assert.equal(result.outcome, 'budget_exhausted');
      assert.match(result.answer, /maxTotalTokens 1500; not approved within 2 s/);
    });
  });

  it('watches a live session to its end, and drives list, status and approve from the command line', async () => {
    const window = 32_768;
    await stack.withWorker({ contextWindow: window, latencyMs: 150 }, async () => {
      const handle = await stack.sessions.start(
        { task: 'watched job [sim steps=24 output=6000-12000]', model: 'agentd-sim', contextWindow: window, maxSteps: 12 },
        { sessionId: 'watched-1' },
      );
      let captured = '';
      const watching = watchSession((id) => stack.sessions.state(id), handle.workflowId, { write: (text) => void (captured += text), isTTY: false }, { pollMs: 200 });

      await pausedState(handle.workflowId, 'max_steps');
      const status = await agentd('status', handle.workflowId);
      assert.match(status.stdout, /paused +max_steps: 12 steps taken, maxSteps 12/);
      assert.match(status.stdout, /spend +[\d.]+k? prompt/);
      // The index follows the session a moment behind its query.
      const list = await eventually(async () => {
        const listed = await agentd('list');
        return /watched-1 +waiting_for_approval/.test(listed.stdout) ? listed : undefined;
      }, 'the pause in the index');
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^SESSION +STATUS +STEPS +CONTEXT +COST +MODEL +STARTED/);
      assert.match(list.stdout, /watched-1 +waiting_for_approval +12 +\d+% +\$0\.\d\d +agentd-sim /);
      const refused = await agentd('approve', handle.workflowId, '--max-steps', '5');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /refused: maxSteps: still exhausted/);
      // The watch polls on its own clock, and a loaded machine once kept its first frame back
      // until after the approval: the frames this test reads must exist before the budget moves.
      await eventually(async () => (/PAUSED +max_steps/.test(captured) ? true : undefined), 'the watch to draw the pause');
      const approve = await agentd('approve', handle.workflowId, '--max-steps', '100');
      assert.equal(approve.code, 0, approve.stderr);
      assert.match(approve.stdout, /approved watched-1: maxSteps 100/);

      const last = await watching;
      assert.equal(last.status, 'completed');
      const lines = captured.split('\n');
      console.log(`watch printed ${lines.length} lines; the last frame:\n${lines.slice(-12).join('\n')}`);
      assert.match(captured, /context +\[[█░|]+\] \d+% of 33K, trigger 50%/);
      assert.match(captured, /progress turn 1\/10, step \d+\/12/);
      assert.match(captured, /PAUSED +max_steps: 12 steps taken, maxSteps 12/);
      assert.match(captured, /step \d+\/100/, 'the raised budget shows');
      assert.match(captured, /last tool calls:\n {2}step +\d+ +\w+/);
      assert.match(captured, /spend +[\d.]+k? prompt .* \$0\.\d{4}/);
      assert.match(captured, /session +watched-1 +completed \(finished\)/);
      const notices = lines.filter((line) => /^context compacted: /.test(line));
      const final = await stack.sessions.state(handle.workflowId);
      assert.ok(final.compaction.noticesTotal > 0, 'the session compacted while watched');
      assert.equal(notices.length, final.compaction.noticesTotal, 'each compaction notice printed once');
      assert.equal(new Set(notices).size, notices.length);

      // The command itself: a finished session prints one frame and exits 0; a missing one exits 3.
      const cli = await agentd('watch', handle.workflowId);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /completed \(finished\)/);
      const missing = await agentd('watch', 'no-such-session');
      assert.equal(missing.code, 3, missing.stderr);
    });
  });
});
