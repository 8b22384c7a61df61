/** `agentd worker`: runs a worker until Ctrl-C/SIGTERM, which lets running activities finish first. */
import { usesSimulator } from '../../config/config';
import { McpConfigError } from '../../mcp/config';
import { ToolModuleError } from '../../tools/userTools';
import { installWorkerRuntime, startWorkerFromConfig } from '../../worker';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse } from '../args';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run a worker (workflows and activities on task queue agentd)',
  help: `usage: agentd worker

Runs the agentSession workflow and its activities. Settings come from the environment:
  OPENAI_BASE_URL, OPENAI_API_KEY   the model endpoint (neither set: the built-in simulator, said loudly)
  AGENTD_MODEL_TIMEOUT_SECONDS      limit of one model request (default 600)
  AGENTD_STORE                      transcript store: SQLite file (default .agentd/transcripts.db)
                                    or a postgres:// URL (schema migrated on start)
  AGENTD_SHUTDOWN_GRACE_SECONDS     on SIGTERM/SIGINT, how long running activities may finish (default 30);
                                    a second signal exits at once
  AGENTD_WORKSPACES                 folder of session workspaces (default .agentd/workspaces)
  AGENTD_HOST_ID                    names this host's queue agentd-host-<id>, where its workspaces'
                                    tool calls run (default the hostname)
  AGENTD_UNSANDBOXED_COMMANDS=1     run_command without bubblewrap (without bwrap it is refused otherwise)
  AGENTD_COMMAND_MEMORY_MIB         address-space limit of each sandboxed process (default 2048)
  AGENTD_COMMAND_MAX_PROCESSES      process limit of sandboxed commands (default 256)
  AGENTD_COMMAND_CPUS               CPUs one session's commands may keep busy, with a cpu cgroup (default 1)
  AGENTD_TOOLS_MODULE               a .js module exporting user tools (\`tools\` or a default export)
  AGENTD_MCP_SERVERS                MCP servers as JSON: [{ name, transport: 'stdio', command, args, env?, cwd?,
                                    maxInstances? } | { name, transport: 'http', url }]; {workspace} in
                                    args, env or cwd is the session folder (one instance per session)
  AGENTD_MCP_CONFIG                 a JSON file of MCP servers, instead of AGENTD_MCP_SERVERS
  AGENTD_ENCRYPTION_KEY_ID, AGENTD_ENCRYPTION_KEY
                                    encrypt payloads sent through Temporal (clients need the same key)
  AGENTD_LOG_LEVEL                  the SDK's log level (default WARN)
  AGENTD_METRICS_ADDRESS            serve Prometheus metrics (Temporal's and agentd's) on host:port/metrics
A bad tools module or server list stops the worker before it connects (exit code 2).
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, CONNECTION_OPTIONS);
    const config = configWith(values);
    installWorkerRuntime({ metricsAddress: config.metricsAddress });
    if (!usesSimulator(config)) console.error(`model endpoint: ${config.modelBaseURL ?? "OpenAI's default"}`);
    let running;
    try {
      running = await startWorkerFromConfig(config);
    } catch (error) {
      if (!(error instanceof ToolModuleError || error instanceof McpConfigError)) throw error;
      console.error(`agentd worker: ${error.message}`);
      return ExitCode.usage;
    }
    await running.run();
    return ExitCode.ok;
  },
};
