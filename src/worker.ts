/**
 * The agentd worker: registers the `agentSession` workflow and its activities on task queue
 * `agentd`. Run directly (`node dist/src/worker.js` or `agentd worker`) it reads its settings from
 * the environment and starts the built-in simulator when no model endpoint is configured.
 */
import type { DataConverter } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkflowBundle } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities';
import { agentdDataConverter, describeEncryption } from './codec/dataConverter';
import { readConfig, usesSimulator, type AgentdConfig } from './config';
import { connectTemporalNative } from './connection/connect';
import { describeConnection } from './connection/options';
import { createModelClient } from './model/client';
import { TASK_QUEUE } from './session/definitions';
import { SIMULATOR_BANNER, startSimulator } from './simulator/server';
import { SqliteTranscriptStore } from './store/sqliteStore';
import { McpHub } from './mcp/hub';
import { readMcpServers } from './mcp/config';
import { builtinTools, ToolRegistry } from './tools/registry';
import { loadUserTools } from './tools/userTools';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  deps: ActivityDeps;
  /** A pre-built workflow bundle (tests build it once per file); otherwise the worker bundles. */
  workflowBundle?: WorkflowBundle;
  identity?: string;
  /** Payload encryption (`agentdDataConverter`); clients must use the same one. */
  dataConverter?: DataConverter;
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
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
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
  worker: Worker;
  /** Runs until `worker.shutdown()` (or a signal), then releases the store, simulator and connection. */
  run(): Promise<void>;
}

export interface WorkerFromConfigOptions {
  /** A pre-built workflow bundle; otherwise the worker bundles. */
  workflowBundle?: WorkflowBundle;
  /** Where AGENTD_MCP_SERVERS / AGENTD_MCP_CONFIG are read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

export async function startWorkerFromConfig(
  config: AgentdConfig,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  options: WorkerFromConfigOptions = {},
): Promise<RunningWorker> {
  // Tool configuration is checked first: a bad module or server list stops the worker before it connects.
  const userTools = config.toolsModule ? await loadUserTools(config.toolsModule, builtinTools.map((tool) => tool.name)) : [];
  const mcpServers = readMcpServers(options.env);
  const simulator = usesSimulator(config) ? await startSimulator() : undefined;
  if (simulator) log(`${SIMULATOR_BANNER} (${simulator.baseURL})`);
  const store = new SqliteTranscriptStore(config.storeFile);
  const mcp = mcpServers.length > 0 ? new McpHub(mcpServers) : undefined;
  const connection = await connectTemporalNative(config.connection);
  const dataConverter = agentdDataConverter(config.encryption);
  const worker = await createAgentWorker({
    connection,
    namespace: config.connection.namespace,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
    ...(dataConverter ? { dataConverter } : {}),
    deps: {
      store,
      model: createModelClient({
        baseURL: simulator?.baseURL ?? config.modelBaseURL,
        apiKey: process.env.OPENAI_API_KEY,
        timeoutMs: config.modelTimeoutMs,
      }),
      tools: new ToolRegistry([...builtinTools, ...userTools]),
      ...(mcp ? { extraTools: mcp } : {}),
      workspaceRoot: config.workspaceRoot,
    },
  });
  log(
    `agentd worker on ${describeConnection(config.connection)}, task queue ${TASK_QUEUE}; ` +
      `${describeEncryption(config.encryption)}; store ${config.storeFile}; workspaces ${config.workspaceRoot}`,
  );
  if (userTools.length > 0) log(`user tools from ${config.toolsModule}: ${userTools.map((tool) => tool.name).join(', ')}`);
  if (mcp) log(`MCP servers: ${mcpServers.map((server) => `${server.name} (${server.transport})`).join(', ')}`);
  return {
    worker,
    async run() {
      try {
        await worker.run();
      } finally {
        await connection.close();
        await store.close();
        await mcp?.close();
        await simulator?.stop();
      }
    },
  };
}

if (require.main === module) {
  installWorkerLogging();
  // readConfig inside the chain, so a bad setting is reported in one line like any other failure.
  Promise.resolve()
    .then(() => startWorkerFromConfig(readConfig()))
    .then((running) => running.run())
    .catch((error: unknown) => {
      process.stderr.write(`agentd worker: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
