/** `agentd worker`: runs a worker until Ctrl-C/SIGTERM, which lets running activities finish first. */
import { usesSimulator } from '../../config';
import { installWorkerLogging, startWorkerFromConfig } from '../../worker';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse } from '../args';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run a worker (workflows and activities on task queue agentd)',
  help: `usage: agentd worker

Runs the agentSession workflow and its activities. Settings come from the environment:
  OPENAI_BASE_URL, OPENAI_API_KEY   the model endpoint (neither set: the built-in simulator, said loudly)
  AGENTD_STORE                      transcript store: SQLite file (default .agentd/transcripts.db)
                                    or a postgres:// URL (schema migrated on start)
  AGENTD_SHUTDOWN_GRACE_SECONDS     on SIGTERM/SIGINT, how long running activities may finish (default 30);
                                    a second signal exits at once
  AGENTD_WORKSPACES                 folder of session workspaces (default .agentd/workspaces)
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, CONNECTION_OPTIONS);
    const config = configWith(values);
    installWorkerLogging();
    if (!usesSimulator(config)) console.error(`model endpoint: ${config.modelBaseURL ?? "OpenAI's default"}`);
    const running = await startWorkerFromConfig(config);
    await running.run();
    return ExitCode.ok;
  },
};
