/**
 * The agentd worker: registers the `agentSession` workflow and its activities on task queue
 * `agentd`, and the workspace activities on its host's queue `agentd-host-<hostId>`. Run directly (`node dist/src/worker.js` or `agentd worker`) it reads its settings from
 * the environment and starts the built-in simulator when no model endpoint is configured.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, createHostActivities, type ActivityDeps } from './activities';
import { readConfig, usesSimulator, type AgentdConfig } from './config';
import { createModelClient } from './model/client';
import { hostTaskQueue, TASK_QUEUE } from './session/definitions';
import { SIMULATOR_BANNER, startSimulator } from './simulator/server';
import { SqliteTranscriptStore } from './store/sqliteStore';
import { createBuiltinRegistry } from './tools/registry';
import { describeSandbox, detectCommandSandbox } from './tools/sandbox';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  deps: ActivityDeps;
  /** A pre-built workflow bundle (tests build it once per file); otherwise the worker bundles. */
  workflowBundle?: WorkflowBundle;
  identity?: string;
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
  });
}

/** The second worker of a host: only the activities that touch workspaces, on the host's own queue. */
export function createHostWorker(options: AgentWorkerOptions & { hostTaskQueue: string }): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.hostTaskQueue,
    activities: createHostActivities(options.deps),
    ...(options.identity ? { identity: `${options.identity}/host` } : {}),
  });
}

/**
 * Sets the SDK's log level once per process (env AGENTD_LOG_LEVEL, default WARN): the worker's
 * INFO lines (bundling, state changes) drown the progress an operator wants to read.
 */
export function installWorkerLogging(level = process.env.AGENTD_LOG_LEVEL ?? 'WARN'): void {
  const levels: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  const chosen = levels.find((candidate) => candidate === level.toUpperCase()) ?? 'WARN';
  Runtime.install({ logger: new DefaultLogger(chosen) });
}

/** A worker wired to the environment's store, model endpoint and Temporal server. */
export interface RunningWorker {
  /** Polls TASK_QUEUE; shutting it down stops the host worker too. */
  worker: Worker;
  /** Polls the host's own queue for the activities that touch its workspaces. */
  hostWorker: Worker;
  /** Runs until `worker.shutdown()` (or a signal), then releases the store, simulator and connection. */
  run(): Promise<void>;
}

export async function startWorkerFromConfig(
  config: AgentdConfig,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<RunningWorker> {
  const simulator = usesSimulator(config) ? await startSimulator() : undefined;
  if (simulator) log(`${SIMULATOR_BANNER} (${simulator.baseURL})`);
  const store = new SqliteTranscriptStore(config.storeFile);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const commandSandbox = detectCommandSandbox({
    unsandboxedCommands: config.unsandboxedCommands,
    limits: config.commandLimits,
    searchPath: process.env.PATH ?? '',
  });
  const host = { hostId: config.hostId, taskQueue: hostTaskQueue(config.hostId) };
  const options = {
    connection,
    namespace: config.namespace,
    deps: {
      store,
      model: createModelClient({
        baseURL: simulator?.baseURL ?? config.modelBaseURL,
        apiKey: process.env.OPENAI_API_KEY,
        timeoutMs: config.modelTimeoutMs,
      }),
      tools: createBuiltinRegistry(),
      workspaceRoot: config.workspaceRoot,
      commandSandbox,
      host,
    },
  };
  const worker = await createAgentWorker(options);
  const hostWorker = await createHostWorker({ ...options, hostTaskQueue: host.taskQueue });
  log(
    `agentd worker on ${config.temporalAddress} (namespace ${config.namespace}, task queues ${TASK_QUEUE} and ` +
      `${host.taskQueue}); store ${config.storeFile}; workspaces ${config.workspaceRoot}`,
  );
  log(describeSandbox(commandSandbox));
  return {
    worker,
    hostWorker,
    async run() {
      try {
        // Either worker stopping (shutdown, signal, fatal error) stops the other.
        await Promise.all([
          worker.run().finally(() => stopIfRunning(hostWorker)),
          hostWorker.run().finally(() => stopIfRunning(worker)),
        ]);
      } finally {
        await connection.close();
        await store.close();
        await simulator?.stop();
      }
    },
  };
}

function stopIfRunning(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
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
