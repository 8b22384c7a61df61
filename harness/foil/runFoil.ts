/** Runs the naive foil to its end on a stack's dev server, with its own worker and simulator. */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { createModelClient } from '../../src/model/client';
import { DEFAULT_SYSTEM_PROMPT } from '../../src/session/input';
import type { SimulatorOptions } from '../../src/simulator/options';
import { startSimulator } from '../../src/simulator/server';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { createFoilActivities } from './activities';
import { FOIL_TASK_QUEUE, FOIL_WORKFLOW_TYPE, type NaiveAgentInput } from './types';
import type { naiveAgent } from './workflows';

export interface FoilRun {
  /** How the run closed: COMPLETED, FAILED, TERMINATED… */
  readonly status: string;
  /** Model calls scheduled: the step the foil was on when it ended. */
  readonly step: number;
  /** The termination reason, or the failure and its causes, as the server recorded them. */
  readonly why: string;
  /** As the server counts it (describe's historySize). */
  readonly historyBytes: number;
  readonly historyEvents: number;
}

export interface FoilSetup {
  readonly address: string;
  readonly client: Client;
  readonly bundle: WorkflowBundle;
  readonly workspaceRoot: string;
}

export async function runFoil(setup: FoilSetup, simulatorOptions: SimulatorOptions, task: string, maxSteps: number, toolOutputCapChars: number): Promise<FoilRun> {
  const simulator = await startSimulator(simulatorOptions);
  const connection = await NativeConnection.connect({ address: setup.address });
  const workflowId = `foil-${Date.now()}`;
  try {
    const worker = await Worker.create({
      connection,
      taskQueue: FOIL_TASK_QUEUE,
      workflowBundle: setup.bundle,
      activities: createFoilActivities({
        model: createModelClient({ baseURL: simulator.baseURL }),
        tools: createBuiltinRegistry(),
        workspaceRoot: setup.workspaceRoot,
      }),
    });
    const input: NaiveAgentInput = {
      task,
      model: 'agentd-sim',
      systemPrompt: DEFAULT_SYSTEM_PROMPT,
      maxSteps,
      toolTimeoutSeconds: 120,
      toolOutputCapChars,
    };
    await worker.runUntil(async () => {
      const handle = await setup.client.workflow.start<typeof naiveAgent>(FOIL_WORKFLOW_TYPE, {
        taskQueue: FOIL_TASK_QUEUE,
        workflowId,
        args: [input],
      });
      // Ended either way; what ended it is read from history below.
      await handle.result().catch(() => undefined);
    });
  } finally {
    await connection.close();
    await simulator.stop();
  }
  const description = await setup.client.workflow.getHandle(workflowId).describe();
  const events = await pagedHistory(setup.client, workflowId);
  return {
    status: description.status.name,
    step: events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'foilCallModel').length,
    why: endReason(events),
    historyBytes: description.historySize ?? 0,
    historyEvents: description.historyLength,
  };
}

/**
 * The whole history in small pages: the foil's events carry its messages, and a default page
 * (1000 events) of them is over gRPC's 4 MB limit, which the plain fetchHistory() runs into.
 */
async function pagedHistory(client: Client, workflowId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      // Payloads are under the 256 KB blob limit, so eight events stay far below 4 MB.
      maximumPageSize: 8,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** Termination reason, or the failure and its causes, of the last event. */
function endReason(events: readonly temporal.api.history.v1.IHistoryEvent[]): string {
  const last = events.at(-1);
  const terminated = last?.workflowExecutionTerminatedEventAttributes;
  if (terminated) return `terminated: ${terminated.reason ?? ''}`;
  const messages: string[] = [];
  for (let failure = last?.workflowExecutionFailedEventAttributes?.failure; failure; failure = failure.cause) {
    if (failure.message && messages.at(-1) !== failure.message) messages.push(failure.message);
  }
  return messages.length > 0 ? `failed: ${messages.join(' ← ')}` : `ended with ${String(last?.eventType)}`;
}
