/**
 * Runs the floor workflow (bench/floor/workflows.ts) on the stack's server, in this process, with the
 * worker settings agentd's own worker gets (ENGINE_TUNING.worker), on a task queue of its own: bare
 * (no-op activities) or with the least I/O a step needs (ioFloorActivities).
 */
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { ENGINE_TUNING } from '../../src/config/engineTuning';
import type { Stack } from '../../harness/stack';
import { floorActivities, type FloorActivities } from './activities';

export interface FloorTiming {
  readonly workflows: number;
  readonly steps: number;
  readonly seconds: number;
  readonly workflowIds: readonly string[];
}

export interface Floor {
  /** `workflows` floor workflows of `steps` steps each, all at once; resolves when all are done. */
  run(workflows: number, steps: number): Promise<FloorTiming>;
}

let floorBundle: Promise<WorkflowBundle> | undefined;

/** Bundled once per process, apart from agentd's bundle: the floor is no part of src/workflows. */
function bundle(): Promise<WorkflowBundle> {
  floorBundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('./workflows'), logger: new DefaultLogger('WARN') });
  return floorBundle;
}

let runs = 0;

/** Which floor: its name (in its task queue and workflow ids) and its activities. */
export interface FloorKind {
  readonly name: string;
  readonly activities: FloorActivities;
}

export const BARE_FLOOR: FloorKind = { name: 'bare', activities: floorActivities };

/** Runs `work` while a floor worker of `kind` polls a task queue of its own. */
export async function withFloorWorker<T>(stack: Stack, work: (floor: Floor) => Promise<T>, kind: FloorKind = BARE_FLOOR): Promise<T> {
  const { activities } = kind;
  const taskQueue = `agentd-bench-floor-${kind.name}`;
  const connection = await NativeConnection.connect({ address: stack.temporal.address });
  try {
    const worker = await Worker.create({
      ...ENGINE_TUNING.worker,
      connection,
      taskQueue,
      workflowBundle: await bundle(),
      activities,
    });
    const floor: Floor = {
      async run(workflows, steps) {
        const batch = ++runs;
        const workflowIds = Array.from({ length: workflows }, (_, n) => `${taskQueue}-${process.pid}-${batch}-${n}`);
        const started = performance.now();
        const done = await Promise.all(
          workflowIds.map((workflowId) => stack.client.workflow.execute('floorSession', { taskQueue, workflowId, args: [steps] })),
        );
        const seconds = (performance.now() - started) / 1000;
        return { workflows, steps: done.reduce((sum, ran) => sum + ran, 0), seconds, workflowIds };
      },
    };
    return await worker.runUntil(work(floor));
  } finally {
    await connection.close();
  }
}
