/** An agent session end to end: real dev server, real worker, real HTTP to the simulator. */
import { WorkflowFailedError } from '@temporalio/client';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionInputError } from '../../src/session/input';
import { totalRejected } from '../../src/simulator/stats';
import { compactNowUpdate, TASK_QUEUE, WORKFLOW_TYPE } from '../../src/session/definitions';
import type { CompactNowResult } from '../../src/session/state';
import { eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

describe('agentSession', () => {
  const stack = suiteStack();

  it('runs an autonomous job to completion through the simulator', async () => {
    await stack.withWorker({}, async (simulator) => {
      const handle = await stack.sessions.start({ task: 'tidy the workspace [sim steps=21]', model: 'agentd-sim' });
      const result = await stack.sessions.result(handle.workflowId);

      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, 22, '21 tool steps and the finish call');
      assert.match(result.answer, /21 steps/);
      const stats = simulator.stats();
      assert.equal(stats.requests, 22);
      assert.equal(totalRejected(stats), 0);
      // Server-reported usage is carried into the totals.
      assert.equal(result.usage.promptTokens, stats.totalPromptTokens);

      const rows = await stack.store.list(handle.workflowId);
      assert.deepEqual(
        rows.map((row) => row.seq),
        rows.map((_, index) => index),
        'seqs are contiguous from 0',
      );
      assert.equal(rows.length, 2 + 22 * 2, 'system, task, then one reply and one tool result per step');
      const toolNames = rows.flatMap((row) =>
        row.message.role === 'assistant' ? (row.message.tool_calls ?? []).map((call) => call.function.name) : [],
      );
      for (const name of ['list_files', 'write_file', 'run_command', 'read_file', 'finish']) {
        assert.ok(toolNames.includes(name), `the job used ${name}`);
      }
      assert.ok(
        rows.some((row) => row.message.role === 'tool' && /exit code: 0/.test(row.message.content)),
        'a command really ran in the workspace',
      );
    });
  });

  it('answers the state query while it runs', async () => {
    await stack.withWorker({ latencyMs: 150 }, async () => {
      const handle = await stack.sessions.start({ task: 'slow job [sim steps=12]', model: 'agentd-sim' });
      const running = await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.step >= 3 ? state : undefined;
      }, 'step 3');
      assert.equal(running.status, 'running');
      assert.equal(running.context.window, 128_000);
      assert.ok(running.context.tokens > 0);
      assert.ok(running.lastToolCalls.length > 0);
      const result = await stack.sessions.result(handle.workflowId);
      assert.ok(result.steps > running.step);
      const done = await stack.sessions.state(handle.workflowId);
      assert.equal(done.status, 'completed');
      assert.equal(done.outcome, 'finished');
    });
  });

  it('answers a message sent while the task runs in a turn of its own', async () => {
    await stack.withWorker({ latencyMs: 100 }, async (simulator) => {
      const handle = await stack.sessions.start({ task: 'first job [sim steps=4]', model: 'agentd-sim' });
      await stack.sessions.send(handle.workflowId, 'please also count the notes');
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.turns, 2);
      // The simulator's follow-up turn: 2 tool steps, then a plain answer about the message.
      assert.equal(result.steps, 5 + 3);
      assert.match(result.answer, /please also count/);
      assert.equal(totalRejected(simulator.stats()), 0);
      const rows = await stack.store.list(handle.workflowId);
      const users = rows.filter((row) => row.message.role === 'user').map((row) => row.message.content);
      assert.deepEqual(users, ['first job [sim steps=4]', 'please also count the notes']);
    });
  });

  it('waits for a message after its turn when asked to, then goes on', async () => {
    await stack.withWorker({}, async () => {
      const handle = await stack.sessions.start({
        task: 'short job [sim steps=2]',
        model: 'agentd-sim',
        awaitMessagesSeconds: 2,
      });
      await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.status === 'waiting_for_message' ? state : undefined;
      }, 'waiting_for_message');
      await stack.sessions.send(handle.workflowId, 'one more thing [sim steps=1]');
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.turns, 2);
      assert.equal(result.outcome, 'finished');
      assert.match(result.answer, /one more thing/);
    });
  });

  it('records a malformed message signal as a warning and keeps going', async () => {
    await stack.withWorker({ latencyMs: 50 }, async () => {
      const handle = await stack.sessions.start({ task: 'job [sim steps=3]', model: 'agentd-sim' });
      await handle.signal('message', { txt: 'wrong field' });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.turns, 1);
      const state = await stack.sessions.state(handle.workflowId);
      assert.match(state.warnings.join('\n'), /malformed message signal: text:/);
    });
  });

  it('stops at maxSteps with a clear outcome when it may not pause for approval', async () => {
    await stack.withWorker({}, async () => {
      // approvalTimeoutSeconds 0: end at the limit instead of waiting for `approve` (test/unit/policy/budget.test.ts).
      const handle = await stack.sessions.start({
        task: 'long job [sim steps=50]',
        model: 'agentd-sim',
        maxSteps: 5,
        approvalTimeoutSeconds: 0,
      });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'step_limit');
      assert.equal(result.steps, 5);
      assert.match(result.answer, /maxSteps 5/);
    });
  });

  it('answers a compactNow accepted during the last step before it ends', async () => {
    // Slow answers keep the last step's model call in flight while the update arrives.
    await stack.withWorker({ latencyMs: 2000 }, async () => {
      const handle = await stack.sessions.start({
        task: 'short leash [sim steps=50]',
        model: 'agentd-sim',
        maxSteps: 2,
        approvalTimeoutSeconds: 0,
      });
      await eventually(async () => ((await stack.sessions.state(handle.workflowId)).step === 2 ? true : undefined), 'the last step');
      const answered: CompactNowResult = await handle.executeUpdate(compactNowUpdate);
      assert.equal(typeof answered.compacted, 'boolean', JSON.stringify(answered));
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'step_limit');
      assert.equal(result.steps, 2);
    });
  });

  it('rejects bad input at the client, naming the field, before anything starts', async () => {
    await assert.rejects(
      stack.sessions.start({ task: '  ', model: 'agentd-sim' }, { sessionId: 'never-started' }),
      (error: unknown) => error instanceof SessionInputError && /task: must not be empty/.test(error.message),
    );
    await assert.rejects(
      stack.sessions.start({ task: 'x', model: 'some-private-model' }),
      (error: unknown) => error instanceof SessionInputError && /contextWindow: model 'some-private-model'/.test(error.message),
    );
    await assert.rejects(stack.sessions.handle('never-started').describe(), /not found/i);
  });

  it('fails a session started around the client with bad input, naming the field', async () => {
    await stack.withWorker({}, async () => {
      const handle = await stack.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: TASK_QUEUE,
        workflowId: `bad-input-${Date.now()}`,
        args: [{ task: 'x', model: 'agentd-sim', contextWindow: 'big' }],
      });
      await assert.rejects(handle.result(), (error: unknown) => {
        assert.ok(error instanceof WorkflowFailedError);
        assert.match(String(error.cause?.message), /contextWindow: .*number/);
        return true;
      });
    });
  });
});
