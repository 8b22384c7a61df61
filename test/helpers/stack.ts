/**
 * The real stack for workflow tests: a dev server, a transcript store in a temp SQLite file, the
 * workflow bundle (the one `npm run build` wrote, when it matches the compiled workflow code; else
 * built once per test file), and a fresh worker (with its own simulator) per test.
 */
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, type WorkflowBundleOption } from '@temporalio/worker';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionClient } from '../../src/client/sessionClient';
import { createModelClient } from '../../src/model/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import type { SimulatorOptions } from '../../src/simulator/options';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { createBuiltinRegistry } from '../../src/tools/registry';
import type { ActivityDeps } from '../../src/activities';
import { createAgentWorker } from '../../src/worker';
import { checkPrebuiltBundle, DEFAULT_BUNDLE_PATH } from '../../src/workflowBundle/prebuiltBundle';
import { entryPoint, finished, spawnNode, type Finished } from './processes';
import { startTestTemporal, type TestTemporal } from './temporal';

/** What a test chooses for its worker; the stack's store, built-in tools and workspaces fill in the rest. */
export type WorkerDeps = Pick<ActivityDeps, 'model'> & Partial<ActivityDeps>;

export interface Stack {
  temporal: TestTemporal;
  client: Client;
  sessions: SessionClient;
  store: SqliteTranscriptStore;
  dir: string;
  storeFile: string;
  workspaceRoot: string;
  bundle: WorkflowBundleOption;
  /** Runs `work` while a fresh worker, talking to a fresh simulator, polls the task queue. */
  withWorker<T>(simulatorOptions: SimulatorOptions, work: (simulator: RunningSimulator) => Promise<T>): Promise<T>;
  /** Runs `work` while a fresh worker with the given model client (and other deps) polls the task queue. */
  runWorker<T>(deps: WorkerDeps, work: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/**
 * Worker logs at WARN: test output should show failures, not every state change. The benchmarks
 * pass ERROR, since the failures of their baselines are expected and reported anyway.
 */
function quietRuntime(level: 'WARN' | 'ERROR' = 'WARN'): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger(level) });
  runtimeInstalled = true;
}

export async function startStack(options: { logLevel?: 'WARN' | 'ERROR' } = {}): Promise<Stack> {
  return startStackOn(await startTestTemporal(), options);
}

/**
 * The same stack on a dev server the caller started (lowered limits, a restartable one…); the
 * stack owns it from here and stops it in `stop()`.
 */
export async function startStackOn(temporal: TestTemporal, options: { logLevel?: 'WARN' | 'ERROR' } = {}): Promise<Stack> {
  quietRuntime(options.logLevel);
  const dir = await mkdtemp(join(tmpdir(), 'agentd-stack-'));
  const storeFile = join(dir, 'transcripts.db');
  const workspaceRoot = join(dir, 'workspaces');
  const store = new SqliteTranscriptStore(storeFile);
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  const prebuilt = checkPrebuiltBundle(DEFAULT_BUNDLE_PATH);
  const bundle: WorkflowBundleOption = prebuilt.usable
    ? { codePath: prebuilt.codePath }
    : await bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflows'), logger: new DefaultLogger('WARN') });

  async function runWorker<T>(deps: WorkerDeps, work: () => Promise<T>): Promise<T> {
    const workerConnection = await NativeConnection.connect({ address: temporal.address });
    try {
      const worker = await createAgentWorker({
        connection: workerConnection,
        workflowBundle: bundle,
        deps: { store, tools: createBuiltinRegistry(), workspaceRoot, ...deps },
      });
      return await worker.runUntil(work());
    } finally {
      await workerConnection.close();
    }
  }

  async function withWorker<T>(simulatorOptions: SimulatorOptions, work: (simulator: RunningSimulator) => Promise<T>) {
    const simulator = await startSimulator(simulatorOptions);
    try {
      return await runWorker({ model: createModelClient({ baseURL: simulator.baseURL }) }, () => work(simulator));
    } finally {
      await simulator.stop();
    }
  }

  return {
    temporal,
    client,
    sessions: new SessionClient(client),
    store,
    dir,
    storeFile,
    workspaceRoot,
    bundle,
    withWorker,
    runWorker,
    async stop() {
      await connection.close();
      await store.close();
      await temporal.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs the `agentd` command line as a child process against the stack's server and store. */
export function agentdOn(stack: Stack): (...args: string[]) => Promise<Finished> {
  const env = { TEMPORAL_ADDRESS: stack.temporal.address, AGENTD_STORE: stack.storeFile };
  return (...args) => finished(spawnNode(entryPoint('cli/main'), args, env));
}
