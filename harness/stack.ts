/**
 * The real stack every end-to-end test and benchmark runs on: a dev server with a client, and for
 * the full stack a transcript store in a temp SQLite file, the workflow bundle (the one `npm run
 * build` wrote, when it matches the compiled workflow code; else built once per test file), and a
 * fresh worker (with its own simulator) per test.
 */
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, type WorkflowBundleOption } from '@temporalio/worker';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionClient } from '../src/client/sessionClient';
import { createModelClient } from '../src/model/client';
import { startSimulator, type RunningSimulator } from '../src/simulator/server';
import type { SimulatorOptions } from '../src/simulator/options';
import { SqliteTranscriptStore } from '../src/store/sqliteStore';
import { createBuiltinRegistry } from '../src/tools/registry';
import type { ActivityDeps } from '../src/activities';
import { createAgentWorker } from '../src/worker';
import { checkPrebuiltBundle, DEFAULT_BUNDLE_PATH, WORKFLOW_BUNDLER_OPTIONS } from '../src/workflowBundle/prebuiltBundle';
import { entryPoint, finished, spawnNode, type Finished } from './processes';
import { startTestTemporal, type TestTemporal } from './temporal';

/** What a test chooses for its worker; the stack's store, built-in tools and workspaces fill in the rest. */
export type WorkerDeps = Pick<ActivityDeps, 'model'> & Partial<ActivityDeps>;

/**
 * A dev server with a client on it and a scratch directory: what tests whose workers run as
 * separate processes (or with settings of their own) share with every other stack.
 */
export interface ServerStack {
  temporal: TestTemporal;
  client: Client;
  sessions: SessionClient;
  dir: string;
  stop(): Promise<void>;
}

export interface Stack extends ServerStack {
  store: SqliteTranscriptStore;
  storeFile: string;
  workspaceRoot: string;
  bundle: WorkflowBundleOption;
  /** Runs `work` while a fresh worker, talking to a fresh simulator, polls the task queue. */
  withWorker<T>(simulatorOptions: SimulatorOptions, work: (simulator: RunningSimulator) => Promise<T>): Promise<T>;
  /** Runs `work` while a fresh worker with the given model client (and other deps) polls the task queue. */
  runWorker<T>(deps: WorkerDeps, work: () => Promise<T>): Promise<T>;
}

export interface StackOptions {
  logLevel?: 'WARN' | 'ERROR';
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
 * Starts on a fresh dev server. A server that fails to start or to answer the client is this
 * machine's trouble, not the code under test's (CI once lost a whole test file to it, with the
 * reason cut from its log), so the reason goes to stderr and a fresh server gets one more try.
 */
async function onFreshServer<T>(start: (temporal: TestTemporal) => Promise<T>): Promise<T> {
  try {
    return await start(await startTestTemporal());
  } catch (err) {
    process.stderr.write(`test stack: the dev server did not come up (${String(err)}); trying a fresh one once more\n`);
    return start(await startTestTemporal());
  }
}

/** A server stack on a fresh dev server; the workers are the caller's. */
export function startServerStack(options: StackOptions = {}): Promise<ServerStack> {
  quietRuntime(options.logLevel);
  return onFreshServer(serverStackOn);
}

/** The full stack, with an in-process worker per `withWorker`/`runWorker`, on a fresh dev server. */
export function startStack(options: StackOptions = {}): Promise<Stack> {
  return onFreshServer((temporal) => startStackOn(temporal, options));
}

/** The server stack owns `temporal` from here: a half-built one must not leave it running for the next file. */
async function serverStackOn(temporal: TestTemporal): Promise<ServerStack> {
  const dir = await mkdtemp(join(tmpdir(), 'agentd-stack-'));
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: temporal.address });
  } catch (err) {
    await temporal.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const client = new Client({ connection });
  return {
    temporal,
    client,
    sessions: new SessionClient(client),
    dir,
    async stop() {
      await connection.close();
      await temporal.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The full stack on a dev server the caller started (lowered limits, a restartable one…); the
 * stack owns it from here and stops it in `stop()`.
 */
export async function startStackOn(temporal: TestTemporal, options: StackOptions = {}): Promise<Stack> {
  quietRuntime(options.logLevel);
  const server = await serverStackOn(temporal);
  const storeFile = join(server.dir, 'transcripts.db');
  const workspaceRoot = join(server.dir, 'workspaces');
  const store = new SqliteTranscriptStore(storeFile);
  let bundle: WorkflowBundleOption;
  try {
    bundle = await workflowBundle();
  } catch (err) {
    await store.close();
    await server.stop();
    throw err;
  }

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
    ...server,
    store,
    storeFile,
    workspaceRoot,
    bundle,
    withWorker,
    runWorker,
    async stop() {
      await store.close();
      await server.stop();
    },
  };
}

/** The bundle `npm run build` wrote when it matches the compiled workflow code; else a fresh one. */
async function workflowBundle(): Promise<WorkflowBundleOption> {
  const prebuilt = checkPrebuiltBundle(DEFAULT_BUNDLE_PATH);
  if (prebuilt.usable) return { codePath: prebuilt.codePath };
  return bundleWorkflowCode({ ...WORKFLOW_BUNDLER_OPTIONS, logger: new DefaultLogger('WARN') });
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
  // Read at each call: a suite's stack exists only once its before() hook has run.
  return (...args) => finished(spawnNode(entryPoint('cli/main'), args, { TEMPORAL_ADDRESS: stack.temporal.address, AGENTD_STORE: stack.storeFile }));
}
