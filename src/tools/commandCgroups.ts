/**
 * A cgroup per session for run_command, where the host lets the worker make them: the session's
 * commands together get at most `maxProcesses` processes (pids controller) and `memoryMiB` of
 * memory (memory controller), whatever other sessions do. Without it the limits are per process
 * (address space) and per uid (processes), as `describeSandbox` says.
 *
 * Supported: cgroup v1 hierarchies the worker (root) can write, with the session's group made under
 * the worker's own group, so the host's limits on the worker still hold. cgroup v2 needs a delegated
 * subtree (the worker's own group cannot have children with controllers while it holds processes),
 * which is not set up here; on such hosts the per-uid and per-process limits are what remains.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { mkdir, rmdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { CommandLimits } from './sandbox';

/** The folders, one per controller, under which each session's group is made. */
export interface CommandCgroups {
  readonly pids: string;
  readonly memory: string;
}

export type CgroupDetection = { readonly cgroups: CommandCgroups } | { readonly unavailable: string };

/** Where this process's v1 pids and memory groups are, with an `agentd-commands` child made in each. */
export function detectCommandCgroups(proc = '/proc/self'): CgroupDetection {
  const mounts = v1Mounts(readOr(`${proc}/mounts`));
  const own = ownV1Groups(readOr(`${proc}/cgroup`));
  const parents: Partial<Record<keyof CommandCgroups, string>> = {};
  for (const controller of ['pids', 'memory'] as const) {
    const mount = mounts.get(controller);
    const group = own.get(controller);
    if (mount === undefined || group === undefined) return { unavailable: `no cgroup v1 ${controller} hierarchy (cgroup v2 needs a delegated subtree)` };
    const parent = path.join(mount, group, 'agentd-commands');
    try {
      mkdirSync(parent, { recursive: true });
      // A probe group proves children can be made and limited here.
      const probe = path.join(parent, `probe-${process.pid}`);
      mkdirSync(probe, { recursive: true });
      rmdirSync(probe);
    } catch (error) {
      return { unavailable: `cannot make cgroups under ${parent}: ${error instanceof Error ? error.message : String(error)}` };
    }
    parents[controller] = parent;
  }
  return { cgroups: { pids: parents.pids!, memory: parents.memory! } };
}

/** The session's groups, made (or found) and limited; returns the `cgroup.procs` files a command joins. */
export async function sessionCgroups(cgroups: CommandCgroups, key: string, limits: CommandLimits): Promise<string[]> {
  const pids = path.join(cgroups.pids, key);
  const memory = path.join(cgroups.memory, key);
  await mkdir(pids, { recursive: true });
  await mkdir(memory, { recursive: true });
  await writeFile(path.join(pids, 'pids.max'), String(limits.maxProcesses));
  await writeFile(path.join(memory, 'memory.limit_in_bytes'), String(limits.memoryMiB * 1024 * 1024));
  return [path.join(pids, 'cgroup.procs'), path.join(memory, 'cgroup.procs')];
}

/**
 * Removes the session's groups once its command is over; a group still holding a process (being
 * killed) is left for the next command of the session to reuse.
 */
export async function releaseSessionCgroups(procsFiles: readonly string[]): Promise<void> {
  for (const file of procsFiles) await rmdir(path.dirname(file)).catch(() => undefined);
}

/**
 * The command line that puts itself in the groups and then becomes `file args…`: the shell writes its
 * own pid into each `cgroup.procs` before exec, so nothing the command starts runs outside them.
 */
export function joiningCgroups(procsFiles: readonly string[], file: string, args: readonly string[]): { file: string; args: string[] } {
  const script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';
  return { file: '/bin/sh', args: ['-c', script, 'agentd-cgroup', String(procsFiles.length), ...procsFiles, file, ...args] };
}

/** Controller name → mount point of each cgroup v1 hierarchy in `/proc/self/mounts`. */
function v1Mounts(mounts: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type, options] = line.split(' ');
    if (type !== 'cgroup' || mountPoint === undefined || options === undefined) continue;
    for (const option of options.split(',')) found.set(option, mountPoint);
  }
  return found;
}

/** Controller name → this process's group path, from the v1 lines of `/proc/self/cgroup`. */
function ownV1Groups(cgroup: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of cgroup.split('\n')) {
    const match = /^\d+:([^:]+):(.*)$/.exec(line);
    if (match === null) continue;
    for (const controller of match[1]!.split(',')) found.set(controller, match[2]!);
  }
  return found;
}

function readOr(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}
