/**
 * `agentd demo`: the whole stack on one machine — a local Temporal dev server (SQLite file), a
 * worker, the simulator when no endpoint is set — and one autonomous session followed to its end.
 */
import { Connection } from '@temporalio/client';
import { join } from 'node:path';
import { connectClient, SessionClient } from '../../client/sessionClient';
import { resolveSessionInput } from '../../session/resolve';
import { usesSimulator, type AgentdConfig } from '../../config/config';
import { loadConnectionOptions } from '../../connection/connect';
import { describeConnection } from '../../connection/options';
import { startDevServer, type DevServer } from '../../devServer/devServer';
import { ensureTemporalCli } from '../../devServer/temporalCli';
import { installWorkerRuntime, startWorkerFromConfig } from '../../worker';
import { ExitCode, UsageError, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, positiveInt } from '../args';
import { followSession } from '../follow';
import { renderResult } from '../render';
import { renderSpend } from '../renderAmounts';
import type { SessionState } from '../../session/state';
import { sandboxSettingsOf } from '../../worker/sandboxFromConfig';
import { detectCommandSandbox, SandboxKind } from '../../tools/sandbox';

/** A small window, so the simulated demo compacts a few times and prints the notices. */
const DEMO_SIM_WINDOW = 32_768;

const DEMO_TASK =
  'Set up a small project in the workspace: look around, write notes on the plan, run the test ' +
  'suite, read back what you wrote, and repeat until the work is done; then finish with a summary.';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run everything locally and one autonomous session to completion',
  help: `usage: agentd demo [--steps N] [--task TEXT] [--model NAME] [--context-window N]

Starts what is missing (the Temporal dev server on TEMPORAL_ADDRESS with its SQLite file under
.agentd/, a worker, and the built-in simulator when neither OPENAI_API_KEY nor OPENAI_BASE_URL
is set), runs one autonomous session to completion while printing its steps, prints the result,
and stops what it started.

  --steps N            steps the simulator's scripted agent takes (default 40)
  --task TEXT          the task (default: a small scripted project)
  --model NAME         model (env AGENTD_MODEL; agentd-sim without an endpoint)
  --context-window N   usable window of that model, in tokens (simulator default: 32768, small enough
                       that the demo shows compactions)
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, {
      ...CONNECTION_OPTIONS,
      steps: { type: 'string' },
      task: { type: 'string' },
      model: { type: 'string' },
      'context-window': { type: 'string' },
    });
    const config = configWith(values);
    installWorkerRuntime({ metricsAddress: config.metricsAddress });
    const model = values.model ?? config.defaultModel;
    if (!model) throw new UsageError('--model: an endpoint is configured but no model given (or set AGENTD_MODEL)');
    const simulated = usesSimulator(config);
    const steps = positiveInt('steps', values.steps) ?? 40;
    // Without a sandbox the worker refuses run_command: the scripted agent is told so up front, so the run shows no tool error.
    const commandsOff = detectCommandSandbox(sandboxSettingsOf(config)).kind === SandboxKind.refused;
    const task = `${values.task ?? DEMO_TASK}${simulated ? ` [sim steps=${steps} output=2000-20000${commandsOff ? ' commands=off' : ''}]` : ''}`;
    const contextWindow = positiveInt('context-window', values['context-window']) ?? (simulated ? DEMO_SIM_WINDOW : undefined);
    // The whole input is checked before a server or worker starts: a bad field exits 2 at once.
    const input = resolveSessionInput({ task, model, ...(contextWindow ? { contextWindow } : {}) }, config.prices);

    if (commandsOff) {
      console.error('run_command is off in this demo: bubblewrap is missing (apt-get install bubblewrap, or AGENTD_UNSANDBOXED_COMMANDS=1 to run commands unsandboxed)');
    }
    const server = await ensureServer(config);
    const worker = await startWorkerFromConfig(config, (line) => console.error(line));
    const working = worker.run();
    try {
      const sessions = new SessionClient(await connectClient(config), config.prices);
      const handle = await sessions.start(input);
      console.error(`started session ${handle.workflowId} (model ${model})`);
      const result = await followSession(sessions, handle.workflowId, (line) => console.error(line), 500);
      console.log(renderResult(result));
      if (result.finalState) console.log(renderDemoEnd(result.finalState));
      console.error(whereNext(handle.workflowId));
      return ExitCode.ok;
    } finally {
      worker.stop();
      await working;
      await server?.stop();
    }
  },
};

/** What the session cost and how often it compacted, the two things the demo is there to show. */
function renderDemoEnd(state: SessionState): string {
  const { summary, prune, truncate } = state.compaction.byStrategy;
  const lines = [`compactions: ${summary + prune + truncate} (${summary} summary, ${prune} prune, ${truncate} truncate)`];
  if (state.spend) lines.push(`spend: ${renderSpend(state.spend)}`);
  return lines.join('\n');
}

function whereNext(sessionId: string): string {
  const rows: Array<[string, string]> = [
    [`npx agentd transcript ${sessionId}`, 'every message of this session, summaries and memory included'],
    ['npx agentd dev', 'a dev server with the Temporal Web UI on http://127.0.0.1:8233 (keep it running)'],
    ['npx agentd worker', 'a worker for it, in a second terminal'],
    ['npx agentd start "<task>" --follow', 'a session of your own; agentd watch <id> draws its context gauge live'],
    ['npx agentd console', 'the fleet and each session in a browser'],
  ];
  const width = Math.max(...rows.map(([command]) => command.length));
  return ['Where to look next:', ...rows.map(([command, what]) => `  ${command.padEnd(width)}   ${what}`)].join('\n');
}

/** Uses the server at the configured address when one answers; otherwise starts a dev server there. */
async function ensureServer(config: AgentdConfig): Promise<DevServer | undefined> {
  if (await answers(config)) {
    console.error(`using the Temporal server at ${describeConnection(config.connection)}`);
    return undefined;
  }
  const temporalCli = await ensureTemporalCli({ onProgress: (line) => console.error(line) });
  const [ip, port] = splitAddress(config.connection.address);
  const server = await startDevServer({
    temporalCli,
    dbFile: join(config.home, 'temporal.db'),
    ip,
    port,
    logFile: join(config.home, 'temporal.log'),
    onProgress: (line) => console.error(line),
  });
  console.error(`started the Temporal dev server at ${server.address} (data in ${server.dbFile})`);
  return server;
}

async function answers(config: AgentdConfig): Promise<boolean> {
  try {
    const connection = await Connection.connect({ ...(await loadConnectionOptions(config.connection)), connectTimeout: '2 seconds' });
    await connection.close();
    return true;
  } catch {
    return false;
  }
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  const port = Number(address.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port)) throw new UsageError(`TEMPORAL_ADDRESS: expected host:port, got '${address}'`);
  return [address.slice(0, at), port];
}
