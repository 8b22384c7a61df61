/**
 * A fault in the workflow code ends the session (issue 26). The model activity here is a worker of
 * another version: it answers without the `measure` this workflow reads, so the loop throws a
 * TypeError. Before the guard, Temporal retried that workflow task forever and every `state` query
 * failed; now the session fails at once, saying why, and its state still answers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createModelClient } from '../../src/model/client';
import { TASK_QUEUE } from '../../src/session/definitions';
import { startSimulator } from '../../src/simulator/server';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { SessionFault } from '../../src/workflows/agentSession';
import { detectSandboxFromEnv } from '../../src/worker/sandboxFromConfig';
import { suiteStack } from '../helpers/suiteStack';

const EventType = temporal.api.enums.v1.EventType;

describe('a fault in the workflow code', () => {
  const stack = suiteStack({ logLevel: 'ERROR' });

  it('fails the session with the error in its state, instead of retrying the workflow task forever', { timeout: 60_000 }, async () => {
    const simulator = await startSimulator();
    const connection = await NativeConnection.connect({ address: stack.temporal.address });
    try {
      const activities = createActivities({
        store: stack.store,
        model: createModelClient({ baseURL: simulator.baseURL }),
        tools: createBuiltinRegistry(),
        workspaceRoot: stack.workspaceRoot,
        commandSandbox: detectSandboxFromEnv(),
      });
      const olderCallModel: typeof activities.callModel = async (input) => {
        const { measure: _left, ...rest } = await activities.callModel(input);
        return rest as unknown as Awaited<ReturnType<typeof activities.callModel>>;
      };
      const worker = await Worker.create({
        connection,
        taskQueue: TASK_QUEUE,
        workflowBundle: stack.bundle,
        activities: { ...activities, callModel: olderCallModel },
      });
      await worker.runUntil(async () => {
        const { workflowId } = await stack.sessions.start({ task: 'say hello', model: 'agentd-sim' });
        const failure = await stack.sessions.result(workflowId).then(
          () => assert.fail('the session finished'),
          (error: unknown) => error,
        );
        assert.ok(failure instanceof WorkflowFailedError, String(failure));
        assert.ok(failure.cause instanceof ApplicationFailure, String(failure.cause));
        assert.equal(failure.cause.type, SessionFault);
        assert.match(failure.cause.message, /^step 1: the workflow code failed \(TypeError: .*\); the session cannot go on$/);

        const state = await stack.sessions.state(workflowId);
        assert.equal(state.status, 'failed');
        assert.ok(state.warnings.includes(failure.cause.message), state.warnings.join('\n'));

        const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
        const taskFailures = (history.events ?? []).filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
        assert.equal(taskFailures.length, 0, 'no workflow task failed on the way');
      });
    } finally {
      await connection.close();
      await simulator.stop();
    }
  });
});
