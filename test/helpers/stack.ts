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

/**
 * A stack on a fresh dev server. A server that fails to start or to answer the client is this
 * machine's trouble, not the code under test's (CI once lost a whole test file to it, with the
 * reason cut from its log), so the reason goes to stderr and a fresh server gets one more try.
 */
export async function startStack(options: { logLevel?: 'WARN' | 'ERROR' } = {}): Promise<Stack> {
  try {
    return await startStackOn(await startTestTemporal(), options);
  } catch (err) {
    process.stderr.write(`test stack: the dev server did not come up (${String(err)}); trying a fresh one once more\n`);
    return startStackOn(await startTestTemporal(), options);
  }
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
  let connection: Connection;
  let bundle: WorkflowBundleOption;
  try {
    connection = await Connection.connect({ address: temporal.address });
    bundle = await workflowBundle();
  } catch (err) {
    // The stack owns the server: a half-built stack must not leave it running for the next file.
    await store.close();
    await temporal.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const client = new Client({ connection });

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

/** The bundle `npm run build` wrote when it matches the compiled workflow code; else a fresh one. */
async function workflowBundle(): Promise<WorkflowBundleOption> {
  const prebuilt = checkPrebuiltBundle(DEFAULT_BUNDLE_PATH);
  if (prebuilt.usable) return { codePath: prebuilt.codePath };
  return bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflows'), logger: new DefaultLogger('WARN') });
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
