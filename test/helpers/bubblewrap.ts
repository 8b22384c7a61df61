/** The bubblewrap sandbox for tests that need it: required on CI, skipped loudly elsewhere when missing. */
import { DEFAULT_COMMAND_LIMITS, detectCommandSandbox, SandboxKind, type CommandSandbox } from '../../src/tools/sandbox';

/** The detected sandbox, or undefined (after a loud message) when bwrap is unusable outside CI. */
export function requireBubblewrap(): CommandSandbox | undefined {
  const sandbox = detectCommandSandbox({ unsandboxedCommands: false, limits: DEFAULT_COMMAND_LIMITS, searchPath: process.env.PATH ?? '' });
  if (sandbox.kind === SandboxKind.bubblewrap) return sandbox;
  const why = sandbox.kind === SandboxKind.refused ? sandbox.reason : sandbox.kind;
  if (process.env.CI === 'true') throw new Error(`these tests need bubblewrap on CI: ${why}`);
  console.error(`\n*** SKIPPING sandbox tests: bubblewrap is not usable here (${why}) ***\n`);
  return undefined;
}

/** For `describe(name, skipWithoutBubblewrap(sandbox), …)`. */
export function skipWithoutBubblewrap(sandbox: CommandSandbox | undefined): { skip?: string } {
  return sandbox ? {} : { skip: 'bubblewrap is not usable here' };
}
