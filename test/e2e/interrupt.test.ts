/**
 * Interrupt (`agentd interrupt`): the model call or tool call in flight is cancelled within seconds
 * and the session is kept. Measured on the real stack: a model call that never answers, a
 * `sleep 600` command, and a write tool that outlives its cancellation and must not overwrite the
 * interrupted result or run again.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { z } from 'zod';
import { ensureTemporalCli } from '../../src/devServer/temporalCli';
import { createModelClient } from '../../src/model/client';
import { startSimulator } from '../../src/simulator/server';
import { builtinTools, ToolRegistry } from '../../src/tools/registry';
import { defineTool, ToolEffect } from '../../src/tools/tool';
import { agentdOn, eventually } from '../../harness/stack';
import { requireBubblewrap, skipWithoutBubblewrap } from '../helpers/bubblewrap';
import { suiteStack } from '../helpers/suiteStack';

const run = promisify(execFile);
const sandbox = requireBubblewrap();

describe('agentd interrupt', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  /** Runs `agentd interrupt` and says how long it took to answer. */
  async function interrupt(sessionId: string, ...flags: string[]) {
    const started = Date.now();
    const answer = await agentd('interrupt', sessionId, ...flags);
    return { ...answer, tookMs: Date.now() - started };
  }

  /** The store rows of `sessionId` once the reply declaring `tool` is stored: the call is in flight. */
  async function toolInFlight(sessionId: string, tool: string): Promise<void> {
    await eventually(async () => {
      const rows = await stack.store.list(sessionId);
      return rows.some((row) => row.message.role === 'assistant' && row.message.tool_calls?.some((call) => call.function.name === tool)) ? true : undefined;
    }, `${sessionId}: a ${tool} call`);
    // Past the activity's start: the call is running, not about to.
    await sleep(1_000);
  }

  it('cuts off a model call that never answers; the session waits for a message, then goes on', { timeout: 120_000 }, async () => {
    // The third request hangs, as an endpoint that accepted it and went silent; so does the fifth.
    await stack.withWorker({ faultPlan: (index) => (index === 2 || index === 4 ? { kind: 'hang' } : undefined) }, async () => {
      await stack.sessions.start({ task: 'tally the numbers [sim steps=6]', model: 'agentd-sim' }, { sessionId: 'int-model' });
      await eventually(async () => ((await stack.sessions.state('int-model')).step === 3 ? true : undefined), 'the third model call');
      await sleep(1_000);
      const cut = await interrupt('int-model', '--reason', 'the endpoint hangs');
      console.log(`model call interrupted; agentd interrupt answered in ${cut.tookMs} ms`);
      assert.equal(cut.code, 0, cut.stderr);
      assert.match(cut.stdout, /interrupted step 3 of int-model \(the model call cut off\); it waits for a message/);
      // Heartbeats carry the cancellation: seconds, not the model call's 15-minute timeout.
      assert.ok(cut.tookMs < 30_000, `answered in ${cut.tookMs} ms`);
      const state = await stack.sessions.state('int-model');
      assert.equal(state.status, 'waiting_for_message');
      assert.ok(state.warnings.some((warning) => /step 3 interrupted by the operator \(the model call cut off\): the endpoint hangs/.test(warning)), state.warnings.join(' | '));

      const refused = await interrupt('int-model', '--reason', 'again');
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /no model call or tool call in flight/);
      // From the stock CLI, the same update and the same refusal.
      const cli = await ensureTemporalCli();
      const stock = await run(cli, ['workflow', 'update', 'execute', '--workflow-id', 'int-model', '--name', 'interrupt', '--input', '{"reason":"again"}', '--address', stack.temporal.address]).then(
        () => '',
        (error: { stderr?: string }) => String(error.stderr),
      );
      assert.match(stock, /nothing to interrupt/);
      // The stock CLI sends what it is given: the workflow checks the request as agentd's CLI does.
      await assert.rejects(stack.sessions.interrupt('int-model', { reason: ' ' }), (error: Error) => /invalid interrupt: reason: must not be empty/.test(String((error.cause as Error | undefined)?.message)));

      // awaitMessagesSeconds is 0: without the hold the session would have ended.
      await sleep(2_000);
      assert.equal((await stack.sessions.state('int-model')).status, 'waiting_for_message');
      await stack.sessions.send('int-model', 'carry on [sim steps=2]');
      // The first interrupt cancelled the scope the steps run in: the next one must cut off as well.
      await eventually(async () => ((await stack.sessions.state('int-model')).step === 5 ? true : undefined), 'the fifth model call');
      await sleep(1_000);
      const again = await interrupt('int-model', '--reason', 'hangs once more', '--continue');
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /interrupted step 5 of int-model \(the model call cut off\); the turn goes on/);
      const result = await stack.sessions.result('int-model');
      assert.equal(result.outcome, 'finished');
      assert.equal(result.turns, 2);
      const rows = await stack.store.list('int-model');
      assert.ok(rows.some((row) => row.message.role === 'user' && /interrupted step 3 \(the model call cut off\)/.test(String(row.message.content))), 'the model was told');
    });
  });

  it('kills a sleep 600 command and, with --continue, goes on with the turn', { timeout: 120_000, ...skipWithoutBubblewrap(sandbox) }, async () => {
    await stack.withWorker({}, async () => {
      await stack.sessions.start({ task: 'wait for the build [sim steps=3]\n[sim call run_command {"command":"sleep 600"}]', model: 'agentd-sim' }, { sessionId: 'int-cmd' });
      await toolInFlight('int-cmd', 'run_command');
      assert.ok((await run('pgrep', ['-f', 'sleep 600']).catch(() => ({ stdout: '' }))).stdout.trim() !== '', 'the command runs');
      const cut = await interrupt('int-cmd', '--reason', 'build is stuck', '--continue');
      console.log(`run_command interrupted; agentd interrupt answered in ${cut.tookMs} ms`);
      assert.equal(cut.code, 0, cut.stderr);
      assert.match(cut.stdout, /\(run_command cut off\); the turn goes on/);
      assert.ok(cut.tookMs < 30_000, `answered in ${cut.tookMs} ms`);
      await eventually(async () => ((await run('pgrep', ['-f', 'sleep 600']).catch(() => ({ stdout: '' }))).stdout.trim() === '' ? true : undefined), 'sleep 600 to be killed', 10_000);

      const result = await stack.sessions.result('int-cmd');
      assert.equal(result.outcome, 'finished');
      assert.equal(result.turns, 1, 'the turn went on');
      const rows = await stack.store.list('int-cmd');
      const commandResult = rows.find((row) => row.message.role === 'tool' && /interrupted: the operator stopped run_command/.test(String(row.message.content)));
      assert.ok(commandResult, 'the command has an interrupted result');
    });
  });

  it('records a write tool cut off as interrupted, never runs it again, and keeps that record when the attempt finishes late', { timeout: 120_000 }, async () => {
    let starts = 0;
    // A write that does not stop when asked: its attempt goes on after the workflow moved past it.
    const stubborn = defineTool({
      name: 'deploy',
      description: 'deploys the build; takes a while',
      input: z.object({ target: z.string() }),
      effect: ToolEffect.write,
      async run() {
        starts += 1;
        await sleep(10_000);
        return { output: 'deployed' };
      },
    });
    const simulator = await startSimulator();
    try {
      const deps = { model: createModelClient({ baseURL: simulator.baseURL }), tools: new ToolRegistry([...builtinTools, stubborn]) };
      await stack.runWorker(deps, async () => {
        await stack.sessions.start({ task: 'ship it [sim steps=3]\n[sim call deploy {"target":"prod"}]', model: 'agentd-sim' }, { sessionId: 'int-write' });
        await toolInFlight('int-write', 'deploy');
        const cut = await interrupt('int-write', '--reason', 'wrong target');
        assert.equal(cut.code, 0, cut.stderr);
        assert.match(cut.stdout, /\(deploy cut off\)/);
        const recorded = async () => {
          const rows = await stack.store.list('int-write');
          const callId = rows.flatMap((row) => (row.message.role === 'assistant' ? (row.message.tool_calls ?? []) : [])).find((call) => call.function.name === 'deploy')?.id;
          return rows.find((row) => row.message.role === 'tool' && row.message.tool_call_id === callId);
        };
        const row = await recorded();
        assert.match(String(row?.message.content), /interrupted: the operator stopped deploy before it finished \(wrong target\); its effect is unknown and it was not run again/);
        // The attempt ends on its own after 10 s and tries to store "deployed" under the same seq.
        await sleep(12_000);
        assert.equal((await recorded())?.message.content, row?.message.content, 'the interrupted record stays');
        await stack.sessions.send('int-write', 'leave it [sim steps=1]');
        const result = await stack.sessions.result('int-write');
        assert.equal(result.outcome, 'finished');
        assert.equal(starts, 1, 'the write ran once');
      });
    } finally {
      await simulator.stop();
    }
  });
});
