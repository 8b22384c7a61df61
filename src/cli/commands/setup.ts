/** `agentd setup`: gets the Temporal CLI ready (building it once with Go when missing) and says where. */
import { ensureTemporalCli } from '../../devServer/temporalCli';
import { readConfig, usesSimulator } from '../../config';
import { describeStore } from '../../store/storeSetting';
import { ExitCode, type Command } from '../command';
import { parse } from '../args';

export const setupCommand: Command = {
  name: 'setup',
  summary: 'get the Temporal CLI ready (built once with Go when missing)',
  help: `usage: agentd setup

Finds the Temporal CLI ($TEMPORAL_CLI, PATH, or ~/.cache/agentd/bin); when there is none, builds
it once with 'go install github.com/temporalio/cli/cmd/temporal@v1.5.1' (a few minutes, with
progress). Prints the paths agentd will use. Safe to run again.`,
  async run(argv) {
    parse(argv, {});
    const cli = await ensureTemporalCli({ onProgress: (line) => console.error(line) });
    const config = readConfig();
    console.log(`temporal CLI     ${cli}`);
    console.log(`transcript store ${describeStore(config.store)}`);
    console.log(`workspaces       ${config.workspaceRoot}`);
    console.log(`model endpoint   ${usesSimulator(config) ? 'built-in simulator (no OPENAI_API_KEY / OPENAI_BASE_URL)' : (config.modelBaseURL ?? "OpenAI's default")}`);
    return ExitCode.ok;
  },
};
