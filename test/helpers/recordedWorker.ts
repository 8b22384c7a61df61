/**
 * Like Stack.withWorker, with a recording proxy between the worker and its simulator, so a test
 * can see when each model request was sent and what it carried.
 */
import { createModelClient } from '../../src/model/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import type { SimulatorOptions } from '../../src/simulator/options';
import { startRecordingProxy, type RecordingProxy } from '../../harness/recordingProxy';
import type { Stack } from '../../harness/stack';

export async function withRecordedWorker<T>(
  stack: Stack,
  simulatorOptions: SimulatorOptions,
  work: (simulator: RunningSimulator, proxy: RecordingProxy) => Promise<T>,
): Promise<T> {
  const simulator = await startSimulator(simulatorOptions);
  const proxy = await startRecordingProxy(simulator.port);
  try {
    return await stack.runWorker({ model: createModelClient({ baseURL: proxy.baseURL }) }, () => work(simulator, proxy));
  } finally {
    await proxy.stop();
    await simulator.stop();
  }
}
