/**
 * The config's side of the command sandbox: src/tools/sandbox.ts takes plain settings and never
 * reads the config or the environment; this module turns the config into those settings.
 */
import { readConfig, type AgentdConfig } from '../config/config';
import { type CommandSandbox, detectCommandSandbox, type SandboxSettings } from '../tools/sandbox';

/** The sandbox settings a config asks for, with the PATH that bubblewrap is looked up on. */
export function sandboxSettingsOf(config: AgentdConfig, env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  return {
    unsandboxedCommands: config.unsandboxedCommands,
    limits: config.commandLimits,
    searchPath: env.PATH ?? '',
  };
}

let detected: CommandSandbox | undefined;

/**
 * The command sandbox this process's environment asks for (see config/config.ts), detected once per
 * process: for workers embedded in a program or test whose deps name no sandbox.
 */
export function detectSandboxFromEnv(): CommandSandbox {
  if (detected) return detected;
  const env = process.env;
  detected = detectCommandSandbox(sandboxSettingsOf(readConfig(env), env));
  return detected;
}
