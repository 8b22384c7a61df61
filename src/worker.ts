/**
 * The agentd worker: registers the `agentSession` workflow and its activities on task queue
 * `agentd`, and the workspace activities on its host's queue `agentd-host-<hostId>`. Run directly (`node dist/src/worker.js` or `agentd worker`) it reads its settings from
 * the environment and starts the built-in simulator when no model endpoint is configured.
 */
import type { DataConverter } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type LogMetadata, type Logger, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, createHostActivities, type ActivityDeps } from './activities';
import { agentdDataConverter, describeEncryption } from './codec/dataConverter';
import { readConfig, usesSimulator, type AgentdConfig } from './config/config';
import { missingSearchAttributes, MissingSearchAttributesError } from './client/searchAttributeSetup';
import { connectTemporalNative } from './connection/connect';
import { describeConnection } from './connection/options';
import { ENGINE_TUNING } from './config/engineTuning';
import { createModelClient } from './model/client';
import { hostTaskQueue, TASK_QUEUE } from './session/definitions';
import { SIMULATOR_BANNER, startSimulator } from './simulator/server';
import type { McpHub } from './mcp/hub';
import { readMcpServers } from './mcp/config';
import { openStore } from './store/openStore';
import { describeStore } from './store/storeSetting';
import type { TranscriptStore } from './store/transcriptStore';
import { builtinTools, ToolRegistry } from './tools/registry';
import { describeSandbox, detectCommandSandbox } from './tools/sandbox';
import { describeOptionalParts, optionalParts } from './worker/optionalParts';
import { detectSandboxFromEnv, sandboxSettingsOf } from './worker/sandboxFromConfig';
import { loadUserTools } from './tools/userTools';
import { telemetrySinks } from './telemetry/sinks';
import { tracingFromEnv } from './telemetry/tracing';
import { bundlePathFromEnv, checkPrebuiltBundle, WORKFLOW_BUNDLER_OPTIONS } from './workflowBundle/prebuiltBundle';
import { drainOnSignals, requestShutdown } from './worker/workerShutdown';

export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** What the activities use; without a command sandbox, the one this process's environment asks for. */
  deps: WorkerActivityDeps;
  /**
   * A workflow bundle built by the caller (tests build it once per file); otherwise the one
   * `npm run build` wrote, or, when that is missing or stale, the worker bundles at start.
   */
  workflowBundle?: WorkflowBundleOption;
  /** Where the warning about bundling at start goes. @default stderr */
  log?: (line: string) => void;
  identity?: string;
  /** Payload encryption (`agentdDataConverter`); clients must use the same one. */
  dataConverter?: DataConverter;
  /** How long running activities may go on after shutdown is asked for; then they are cancelled. @default 0 */
  shutdownGraceSeconds?: number;
  /** Workflows kept in the cache between tasks; 0 turns the cache off. @default ENGINE_TUNING.worker.maxCachedWorkflows */
  workflowCacheSize?: number;
  /** Activities run at once. @default ENGINE_TUNING.worker.maxConcurrentActivityTaskExecutions */
  maxConcurrentActivities?: number;
}

export type WorkerActivityDeps = Omit<ActivityDeps, 'commandSandbox'> & Partial<Pick<ActivityDeps, 'commandSandbox'>>;

function withCommandSandbox(deps: WorkerActivityDeps): ActivityDeps {
  return { ...deps, commandSandbox: deps.commandSandbox ?? detectSandboxFromEnv() };
}

export function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  return Worker.create({
    ...ENGINE_TUNING.worker,
    ...(options.workflowCacheSize !== undefined ? { maxCachedWorkflows: options.workflowCacheSize } : {}),
    ...(options.maxConcurrentActivities !== undefined ? { maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities } : {}),
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    ...workflowCode(options),
    activities: createActivities(withCommandSandbox(options.deps)),
    sinks: telemetrySinks(Runtime.instance().metricMeter, options.deps.tracing),
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...(options.shutdownGraceSeconds !== undefined ? { shutdownGraceTime: options.shutdownGraceSeconds * 1000 } : {}),
  });
}

/** The caller's bundle, else the prebuilt one when it matches this worker's workflow code, else bundling at start. */
function workflowCode(options: AgentWorkerOptions): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'> {
  if (options.workflowBundle) return { workflowBundle: options.workflowBundle };
  const check = checkPrebuiltBundle(bundlePathFromEnv());
  if (check.usable) return { workflowBundle: { codePath: check.codePath } };
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  log(`agentd worker: ${check.why}; bundling the workflow code at start, which takes seconds (run \`npm run build\` to prebuild it)`);
  const { workflowsPath, preloadModules } = WORKFLOW_BUNDLER_OPTIONS;
  return { workflowsPath, bundlerOptions: { preloadModules } };
}

/** The second worker of a host: only the activities that touch workspaces, on the host's own queue. */
export function createHostWorker(options: AgentWorkerOptions & { hostTaskQueue: string }): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.hostTaskQueue,
    activities: createHostActivities(withCommandSandbox(options.deps)),
    ...(options.identity ? { identity: `${options.identity}/host` } : {}),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...(options.shutdownGraceSeconds !== undefined ? { shutdownGraceTime: options.shutdownGraceSeconds * 1000 } : {}),
  });
}

/**
 * Sets up the SDK's runtime once per process. The log level (env AGENTD_LOG_LEVEL, default WARN):
 * the worker's INFO lines (bundling, state changes) drown the progress an operator wants to read.
 * With `metricsAddress`, a Prometheus endpoint serves Temporal's metrics and agentd's on `/metrics`.
 * The SDK's own signal handlers stay off: `RunningWorker.run` handles SIGTERM/SIGINT (drain, then a
 * forced exit).
 */
export function installWorkerRuntime(options: { metricsAddress?: string | undefined; level?: string } = {}): void {
  const level = options.level ?? process.env.AGENTD_LOG_LEVEL ?? 'WARN';
  const levels: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  const chosen = levels.find((candidate) => candidate === level.toUpperCase()) ?? 'WARN';
  Runtime.install({
    logger: withoutExpectedWarnings(new DefaultLogger(chosen)),
    shutdownSignals: [],
    ...(options.metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: options.metricsAddress } } } } : {}),
  });
}

/**
 * The host worker polls activities only, by design; the SDK warns about that at every start, which
 * reads like a fault to an operator.
 */
const EXPECTED_WARNINGS = ['No workflows registered, not polling for workflow tasks'];

function withoutExpectedWarnings(inner: Logger): Logger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => {
    if (!EXPECTED_WARNINGS.includes(message)) inner.log(level, message, meta);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/** A worker wired to the environment's store, model endpoint and Temporal server. */
export interface RunningWorker {
  /** Polls TASK_QUEUE; when it stops, the host worker stops too. */
  worker: Worker;
  /** Polls the host's own queue for the activities that touch its workspaces. */
  hostWorker: Worker;
  /**
   * Runs until `stop()` or SIGTERM/SIGINT, which drain the worker (a second signal exits at once),
   * then releases the store, simulator and connection.
   */
  run(): Promise<void>;
  /** Asks the worker to drain; safe to call more than once. */
  stop(): void;
}

export interface WorkerFromConfigOptions {
  /** A pre-built workflow bundle; otherwise the prebuilt one (see `AgentWorkerOptions.workflowBundle`). */
  workflowBundle?: WorkflowBundleOption;
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
  // The MCP client library takes a noticeable part of a worker's start; most workers have no MCP server.
  const mcp: McpHub | undefined = mcpServers.length > 0 ? new (await import('./mcp/hub.js')).McpHub(mcpServers) : undefined;
  const dataConverter = agentdDataConverter(config.encryption);
  let store: TranscriptStore | undefined;
  let connection: NativeConnection | undefined;
  const commandSandbox = detectCommandSandbox(sandboxSettingsOf(config));
  const host = { hostId: config.hostId, taskQueue: hostTaskQueue(config.hostId) };
  const tracing = tracingFromEnv(options.env);
  let worker: Worker;
  let hostWorker: Worker;
  try {
    store = await openStore(config.store);
    connection = await connectTemporalNative(config.connection);
    await requireSearchAttributes(connection, config.connection.namespace, log);
    const workerOptions: AgentWorkerOptions = {
      connection,
      namespace: config.connection.namespace,
      shutdownGraceSeconds: config.shutdownGraceSeconds,
      workflowCacheSize: config.workflowCacheSize,
      maxConcurrentActivities: config.maxConcurrentActivities,
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : {}),
      log,
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
        commandSandbox,
        host,
        ...(tracing ? { tracing } : {}),
      },
    };
    // Side by side: loading the workflow bundle into its sandbox is most of a worker's start.
    [worker, hostWorker] = await Promise.all([createAgentWorker(workerOptions), createHostWorker({ ...workerOptions, hostTaskQueue: host.taskQueue })]);
  } catch (error) {
    await connection?.close();
    await store?.close();
    await mcp?.close();
    await simulator?.stop();
    await tracing?.shutdown();
    throw error;
  }
  log(
    `agentd worker on ${describeConnection(config.connection)}, task queues ${TASK_QUEUE} and ${host.taskQueue}; ` +
      `${describeEncryption(config.encryption)}; store ${describeStore(config.store)}; workspaces ${config.workspaceRoot}; ` +
      `workflow cache ${config.workflowCacheSize} sessions, ${config.maxConcurrentActivities} activities at once`,
  );
  log(describeSandbox(commandSandbox));
  log(describeOptionalParts(optionalParts(config, commandSandbox)));
  if (userTools.length > 0) log(`user tools from ${config.toolsModule}: ${userTools.map((tool) => tool.name).join(', ')}`);
  if (mcp) log(`MCP servers: ${mcpServers.map((server) => `${server.name} (${server.transport})`).join(', ')}`);
  if (tracing) log('traces: OpenTelemetry, as the OTEL_* variables say (one span per step, with its model, tool and compaction spans)');
  const openConnection = connection;
  const openedStore = store;
  return {
    worker,
    hostWorker,
    async run() {
      const stopListening = drainOnSignals(worker, config.shutdownGraceSeconds, log);
      // The host worker drains on the same signal; the main worker's handler, first, does the talking.
      const stopHostListening = drainOnSignals(hostWorker, config.shutdownGraceSeconds, () => undefined);
      try {
        // Either worker stopping (a drain, a fatal error) stops the other.
        await Promise.all([
          worker.run().finally(() => requestShutdown(hostWorker)),
          hostWorker.run().finally(() => requestShutdown(worker)),
        ]);
        log('agentd worker: stopped');
      } finally {
        stopListening();
        stopHostListening();
        await openConnection.close();
        await openedStore.close();
        await mcp?.close();
        await simulator?.stop();
        await tracing?.shutdown();
      }
    },
    stop: () => requestShutdown(worker),
  };
}

if (require.main === module) {
  // readConfig inside the chain, so a bad setting is reported in one line like any other failure.
  Promise.resolve()
    .then(() => {
      const config = readConfig();
      installWorkerRuntime({ metricsAddress: config.metricsAddress });
      return startWorkerFromConfig(config);
    })
    .then((running) => running.run())
    .catch((error: unknown) => {
      process.stderr.write(`agentd worker: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}

/**
 * Refuses to poll a namespace that lacks the session search attributes: every session's first
 * task would fail on its upsert and retry for ever. A cluster that will not say (no operator
 * access) gets a warning instead.
 */
async function requireSearchAttributes(connection: NativeConnection, namespace: string, log: (line: string) => void): Promise<void> {
  const missing = await missingSearchAttributes(connection.operatorService, namespace).catch((error: unknown) => {
    log(`warning: could not check the agentd search attributes of namespace ${namespace} (${error instanceof Error ? error.message : String(error)}); sessions stall if they are missing`);
    return [];
  });
  if (missing.length > 0) throw new MissingSearchAttributesError(namespace, missing.map((key) => key.name));
}

