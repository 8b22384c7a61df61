/**
 * A cgroup per session for run_command, where the host lets the worker make them: the session's
 * commands together get at most `maxProcesses` processes (pids controller), `memoryMiB` of memory
 * (memory controller) and, where the cpu controller is there too, `cpus` CPUs at most and one share
 * of the CPU: a session running hundreds of busy processes weighs as much as one running one, and
 * all commands together as much as one of the worker's own threads. Without it the limits are per process (address space)
 * and per uid (processes), as `describeSandbox` says.
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

/** The scheduler's default period, over which a session's commands get `cpus` × this of CPU time. */
const CFS_PERIOD_US = 100_000;

/** The folders, one per controller, under which each session's group is made. */
export interface CommandCgroups {
  readonly pids: string;
  readonly memory: string;
  /** Absent where the host has no cgroup v1 cpu hierarchy the worker can write. */
  readonly cpu?: string;
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
    const problem = probeParent(parent);
    if (problem !== undefined) return { unavailable: `cannot make cgroups under ${parent}: ${problem}` };
    parents[controller] = parent;
  }
  const cpuMount = mounts.get('cpu');
  const cpuGroup = own.get('cpu');
  const cpu = cpuMount === undefined || cpuGroup === undefined ? undefined : path.join(cpuMount, cpuGroup, 'agentd-commands');
  return { cgroups: { pids: parents.pids!, memory: parents.memory!, ...(cpu !== undefined && probeParent(cpu) === undefined ? { cpu } : {}) } };
}

/** Makes `parent` and a probe group in it, which proves children can be made there; why not, when they cannot. */
function probeParent(parent: string): string | undefined {
  try {
    mkdirSync(parent, { recursive: true });
    const probe = path.join(parent, `probe-${process.pid}`);
    mkdirSync(probe, { recursive: true });
    rmdirSync(probe);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The session's groups, made (or found) and limited; returns the `cgroup.procs` files a command joins. */
export async function sessionCgroups(cgroups: CommandCgroups, key: string, limits: CommandLimits): Promise<string[]> {
  const pids = path.join(cgroups.pids, key);
  const memory = path.join(cgroups.memory, key);
  await mkdir(pids, { recursive: true });
  await mkdir(memory, { recursive: true });
  await writeFile(path.join(pids, 'pids.max'), String(limits.maxProcesses));
  await writeFile(path.join(memory, 'memory.limit_in_bytes'), String(limits.memoryMiB * 1024 * 1024));
  const joined = [path.join(pids, 'cgroup.procs'), path.join(memory, 'cgroup.procs')];
  if (cgroups.cpu === undefined) return joined;
  // A new group's cpu.shares is the default 1024, the same as every other session's.
  const cpu = path.join(cgroups.cpu, key);
  await mkdir(cpu, { recursive: true });
  await writeFile(path.join(cpu, 'cpu.cfs_quota_us'), String(Math.round(limits.cpus * CFS_PERIOD_US)));
  return [...joined, path.join(cpu, 'cgroup.procs')];
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
