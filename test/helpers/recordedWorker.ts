/**
 * Like Stack.withWorker, with a recording proxy between the worker and its simulator, so a test
 * can see when each model request was sent and what it carried.
 */
import { NativeConnection } from '@temporalio/worker';
import { createModelClient } from '../../src/model/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import type { SimulatorOptions } from '../../src/simulator/options';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { createAgentWorker } from '../../src/worker';
import { startRecordingProxy, type RecordingProxy } from './recordingProxy';
import type { Stack } from './stack';

export async function withRecordedWorker<T>(
  stack: Stack,
  simulatorOptions: SimulatorOptions,
  work: (simulator: RunningSimulator, proxy: RecordingProxy) => Promise<T>,
): Promise<T> {
  const simulator = await startSimulator(simulatorOptions);
  const proxy = await startRecordingProxy(simulator.port);
  const connection = await NativeConnection.connect({ address: stack.temporal.address });
  try {
    const worker = await createAgentWorker({
      connection,
      workflowBundle: stack.bundle,
      deps: {
        store: stack.store,
        model: createModelClient({ baseURL: proxy.baseURL }),
        tools: createBuiltinRegistry(),
        workspaceRoot: stack.workspaceRoot,
      },
    });
    return await worker.runUntil(work(simulator, proxy));
  } finally {
    await connection.close();
    await proxy.stop();
    await simulator.stop();
  }
}
