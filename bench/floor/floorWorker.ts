/**
 * The I/O floor's worker as a process of its own (`node dist/bench/floor/floorWorker.js`), so the
 * scale benchmark reads its CPU and memory from /proc exactly as it reads an agentd worker's. It
 * takes the settings agentd's worker reads from the same variables: TEMPORAL_ADDRESS, AGENTD_STORE,
 * OPENAI_BASE_URL, AGENTD_WORKFLOW_CACHE_SIZE, AGENTD_MAX_CONCURRENT_ACTIVITIES and
 * AGENTD_METRICS_ADDRESS (the SDK's metrics only), through the same runtime set-up; the task queue
 * is AGENTD_FLOOR_TASK_QUEUE.
 */
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { readConfig } from '../../src/config/config';
import { ENGINE_TUNING } from '../../src/config/engineTuning';
import { createModelClient } from '../../src/model/client';
import { openStore } from '../../src/store/openStore';
import { installWorkerRuntime } from '../../src/worker';
import { ioFloorActivities } from './activities';

async function main(): Promise<void> {
  const taskQueue = process.env.AGENTD_FLOOR_TASK_QUEUE;
  if (!taskQueue) throw new Error('AGENTD_FLOOR_TASK_QUEUE is not set');
  const config = readConfig();
  installWorkerRuntime({ metricsAddress: config.metricsAddress, level: 'WARN' });
  const store = await openStore(config.store);
  const connection = await NativeConnection.connect({ address: config.connection.address });
  const worker = await Worker.create({
    ...ENGINE_TUNING.worker,
    maxCachedWorkflows: config.workflowCacheSize,
    maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities,
    connection,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('./workflows'), logger: new DefaultLogger('WARN') }),
    activities: ioFloorActivities(store, createModelClient({ baseURL: config.modelBaseURL })),
  });
  process.once('SIGTERM', () => worker.shutdown());
  // The scale benchmark waits for this line on stderr, as it waits for agentd's worker's start line.
  process.stderr.write('polling\n');
  await worker.run();
  await connection.close();
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
