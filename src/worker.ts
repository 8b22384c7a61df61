/**
 * The agentd worker: registers the `agentSession` workflow and its activities on task queue
 * `agentd`. Run directly (`node dist/src/worker.js` or `agentd worker`) it reads its settings from
 * the environment and starts the built-in simulator when no model endpoint is configured.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities';
import { readConfig, usesSimulator, type AgentdConfig } from './config';
import { createModelClient } from './model/client';
import { TASK_QUEUE } from './session/definitions';
import { SIMULATOR_BANNER, startSimulator } from './simulator/server';
import { openStore } from './store/openStore';
import { describeStore } from './store/storeSetting';
import type { TranscriptStore } from './store/transcriptStore';
import { createBuiltinRegistry } from './tools/registry';
import { drainOnSignals, requestShutdown } from './workerShutdown';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  deps: ActivityDeps;
  /** A pre-built workflow bundle (tests build it once per file); otherwise the worker bundles. */
  workflowBundle?: WorkflowBundle;
  identity?: string;
  /** How long running activities may go on after shutdown is asked for; then they are cancelled. @default 0 */
  shutdownGraceSeconds?: number;
}

export function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: require.resolve('./workflows') }),
    activities: createActivities(options.deps),
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.shutdownGraceSeconds !== undefined ? { shutdownGraceTime: options.shutdownGraceSeconds * 1000 } : {}),
  });
}

/**
 * Sets the SDK's log level once per process (env AGENTD_LOG_LEVEL, default WARN): the worker's
 * INFO lines (bundling, state changes) drown the progress an operator wants to read. The SDK's own
 * signal handlers stay off: `RunningWorker.run` handles SIGTERM/SIGINT (drain, then a forced exit).
 */
export function installWorkerLogging(level = process.env.AGENTD_LOG_LEVEL ?? 'WARN'): void {
  const levels: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  const chosen = levels.find((candidate) => candidate === level.toUpperCase()) ?? 'WARN';
  Runtime.install({ logger: new DefaultLogger(chosen), shutdownSignals: [] });
}

/** A worker wired to the environment's store, model endpoint and Temporal server. */
export interface RunningWorker {
  worker: Worker;
  /**
   * Runs until `stop()` or SIGTERM/SIGINT, which drain the worker (a second signal exits at once),
   * then releases the store, simulator and connection.
   */
  run(): Promise<void>;
  /** Asks the worker to drain; safe to call more than once. */
  stop(): void;
}

export async function startWorkerFromConfig(
  config: AgentdConfig,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<RunningWorker> {
  const simulator = usesSimulator(config) ? await startSimulator() : undefined;
  if (simulator) log(`${SIMULATOR_BANNER} (${simulator.baseURL})`);
  let store: TranscriptStore | undefined;
  let connection: NativeConnection | undefined;
  let worker: Worker;
  try {
    store = await openStore(config.store);
    connection = await NativeConnection.connect({ address: config.temporalAddress });
    worker = await createAgentWorker({
      connection,
      namespace: config.namespace,
      shutdownGraceSeconds: config.shutdownGraceSeconds,
      deps: {
        store,
        model: createModelClient({
          baseURL: simulator?.baseURL ?? config.modelBaseURL,
          apiKey: process.env.OPENAI_API_KEY,
        }),
        tools: createBuiltinRegistry(),
        workspaceRoot: config.workspaceRoot,
      },
    });
  } catch (error) {
    await connection?.close();
    await store?.close();
    await simulator?.stop();
    throw error;
  }
  log(
    `agentd worker on ${config.temporalAddress} (namespace ${config.namespace}, task queue ${TASK_QUEUE}); ` +
      `store ${describeStore(config.store)}; workspaces ${config.workspaceRoot}`,
  );
  const openConnection = connection;
  const openedStore = store;
  return {
    worker,
    async run() {
      const stopListening = drainOnSignals(worker, config.shutdownGraceSeconds, log);
      try {
        await worker.run();
        log('agentd worker: stopped');
      } finally {
        stopListening();
        await openConnection.close();
        await openedStore.close();
        await simulator?.stop();
      }
    },
    stop: () => requestShutdown(worker),
  };
}

if (require.main === module) {
  installWorkerLogging();
  startWorkerFromConfig(readConfig())
    .then((running) => running.run())
    .catch((error: unknown) => {
      process.stderr.write(`agentd worker: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
