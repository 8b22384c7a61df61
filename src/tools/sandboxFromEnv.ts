/** The command sandbox this process's environment asks for (see config.ts), detected once per process. */
import { readConfig } from '../config';
import { type CommandSandbox, detectCommandSandbox } from './sandbox';

let detected: CommandSandbox | undefined;

export function detectSandboxFromEnv(): CommandSandbox {
  if (detected) return detected;
  const env = process.env;
  const config = readConfig(env);
  detected = detectCommandSandbox({
    unsandboxedCommands: config.unsandboxedCommands,
    limits: config.commandLimits,
    searchPath: env.PATH ?? '',
  });
  return detected;
}
