/**
 * Making a child die with its parent. Node cannot set PR_SET_PDEATHSIG itself, so on Linux we start
 * the child through util-linux `setpriv --pdeathsig`, which sets it and then execs the real program
 * (same pid, nothing left in between). Elsewhere the command runs as is and a parent killed with
 * SIGKILL can still leave the child behind; a clean exit of the parent is the caller's job anyway.
 */
import { spawnSync } from 'node:child_process';
import { findOnPath } from './findExecutable';

export interface WrappedCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Whether the child will get `signal` when this process dies. */
  readonly guarded: boolean;
}

let setprivPath: string | null | undefined;

/** `command args` rewritten so that the child receives `signal` when this process exits or dies. */
export function dieWithParent(command: string, args: readonly string[], signal: NodeJS.Signals = 'SIGTERM'): WrappedCommand {
  const setpriv = findSetpriv();
  if (setpriv === undefined) return { command, args, guarded: false };
  // The death signal fires when the *thread* that forked exits; spawn from the main thread.
  return { command: setpriv, args: ['--pdeathsig', signal, '--', command, ...args], guarded: true };
}

/** setpriv, if it exists and knows --pdeathsig (util-linux 2.33+); probed once per process. */
function findSetpriv(): string | undefined {
  if (setprivPath === undefined) {
    setprivPath = null;
    const candidate = process.platform === 'linux' ? findOnPath('setpriv') : undefined;
    if (candidate !== undefined) {
      // Exec setpriv itself as the payload: it is the one program we know exists.
      const probe = spawnSync(candidate, ['--pdeathsig', 'SIGTERM', '--', candidate, '--version'], {
        stdio: 'ignore',
        timeout: 5000,
      });
      if (probe.status === 0) setprivPath = candidate;
    }
  }
  return setprivPath ?? undefined;
}
