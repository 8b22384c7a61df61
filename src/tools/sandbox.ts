/**
 * How run_command runs its commands: under bubblewrap with resource limits, directly (only when the
 * operator opted out), or not at all. Detection runs `bwrap` once, at worker start.
 */
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants, lstatSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { detectCommandCgroups, joiningCgroups, sessionCgroups, type CommandCgroups } from './commandCgroups';
import { sessionUid } from './commandUser';

/** Where the workspace appears inside the sandbox; file tools accept absolute paths under it too. */
export const SANDBOX_WORKSPACE = '/workspace';
export interface CommandLimits {
  /** Address-space limit of each process, and with a session cgroup the memory of all of them, in MiB. @default 2048 */
  readonly memoryMiB: number;
  /** Processes a session's commands may have at once (contains a fork bomb). @default 256 */
  readonly maxProcesses: number;
  /** CPUs a session's commands may keep busy together, where the session has a cpu cgroup. @default 1 */
  readonly cpus: number;
}

export const DEFAULT_COMMAND_LIMITS: CommandLimits = Object.freeze({ memoryMiB: 2048, maxProcesses: 256, cpus: 1 });

export const SandboxKind = { bubblewrap: 'bubblewrap', unsandboxed: 'unsandboxed', refused: 'refused' } as const;
export type SandboxKind = (typeof SandboxKind)[keyof typeof SandboxKind];

export type CommandSandbox =
  | {
      readonly kind: typeof SandboxKind.bubblewrap;
      readonly bwrap: string;
      readonly prlimit: string;
      /** Set when the worker is root: the command drops to its session's own uid (`sessionUid`) with this setpriv. */
      readonly setpriv?: string;
      readonly limits: CommandLimits;
      /** A root worker's per-session cgroups, or why the host gives none. */
      readonly cgroups?: CommandCgroups | { readonly unavailable: string };
    }
  /** The operator set AGENTD_UNSANDBOXED_COMMANDS=1: commands run as the worker, limited only in time and output. */
  | { readonly kind: typeof SandboxKind.unsandboxed }
  /** No usable bubblewrap and no opt-out: run_command answers `reason` instead of running anything. */
  | { readonly kind: typeof SandboxKind.refused; readonly reason: string };

export interface SandboxSettings {
  readonly unsandboxedCommands: boolean;
  readonly limits: CommandLimits;
  /** Where to look for bwrap, prlimit and setpriv. */
  readonly searchPath: string;
}

/** Picks the mode for this worker; the probe makes a bwrap that cannot create namespaces count as missing. */
export function detectCommandSandbox(settings: SandboxSettings): CommandSandbox {
  if (settings.unsandboxedCommands) return { kind: SandboxKind.unsandboxed };
  const bwrap = findExecutable('bwrap', settings.searchPath);
  const prlimit = findExecutable('prlimit', settings.searchPath);
  const asRoot = process.getuid?.() === 0;
  const setpriv = asRoot ? findExecutable('setpriv', settings.searchPath) : undefined;
  const missing = [
    bwrap ? undefined : 'bwrap (Debian package bubblewrap)',
    prlimit ? undefined : 'prlimit (util-linux)',
    asRoot && !setpriv ? 'setpriv (util-linux)' : undefined,
  ].filter((name): name is string => name !== undefined);
  if (!bwrap || !prlimit || missing.length > 0) {
    return refused(`${missing.join(' and ')} not found on the worker's PATH`);
  }
  const probe = spawnSync(bwrap, [...namespaceArgs(asRoot), ...filesystemArgs(), '--', 'true'], {
    timeout: 10_000,
    encoding: 'utf8',
  });
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`).trim();
    return refused(`bwrap cannot create a sandbox here: ${why}`);
  }
  const perSession = setpriv ? { setpriv, cgroups: cgroupsOrWhyNot() } : {};
  return { kind: SandboxKind.bubblewrap, bwrap, prlimit, ...perSession, limits: settings.limits };
}

function cgroupsOrWhyNot(): CommandCgroups | { unavailable: string } {
  const found = detectCommandCgroups();
  return 'cgroups' in found ? found.cgroups : found;
}

/** The `cgroup.procs` files of the workspace's session groups, made and limited; none when this worker has no cgroups. */
export async function sessionCgroupsFor(sandbox: CommandSandbox, workspace: string): Promise<string[]> {
  if (sandbox.kind !== SandboxKind.bubblewrap || sandbox.cgroups === undefined || 'unavailable' in sandbox.cgroups) return [];
  return sessionCgroups(sandbox.cgroups, `session-${sessionUid(workspace)}`, sandbox.limits);
}

/** One line for the worker's start-up log. */
export function describeSandbox(sandbox: CommandSandbox): string {
  switch (sandbox.kind) {
    case SandboxKind.bubblewrap:
      return (
        `run_command sandboxed with bubblewrap (no network, writes only in the workspace, ` +
        `${sandbox.limits.memoryMiB} MiB address space per process, ${sandbox.limits.maxProcesses} processes per session` +
        `${sandbox.setpriv ? ', each session as a uid of its own' : ' in a user namespace of its own'}${describeCgroups(sandbox)})`
      );
    case SandboxKind.unsandboxed:
      return 'run_command NOT sandboxed (AGENTD_UNSANDBOXED_COMMANDS=1): commands run as the worker user with its file and network access';
    case SandboxKind.refused:
      return `run_command disabled: ${sandbox.reason}`;
  }
}

function describeCgroups(sandbox: Extract<CommandSandbox, { kind: typeof SandboxKind.bubblewrap }>): string {
  if (sandbox.cgroups === undefined) return '';
  if ('unavailable' in sandbox.cgroups) return `; no session cgroup: ${sandbox.cgroups.unavailable}, so memory is limited per process only`;
  const cpu = sandbox.cgroups.cpu === undefined ? '' : `, ${sandbox.limits.cpus} CPU at most and one share of it`;
  return `; a cgroup per session: ${sandbox.limits.maxProcesses} processes and ${sandbox.limits.memoryMiB} MiB of memory in all${cpu}`;
}

export interface CommandLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The workspace as the command sees it (its HOME). */
  readonly home: string;
  /**
   * bwrap's options, NUL-separated, to write to the child's fd 3 (`--args 3`): on its command line they
   * would show the host's workspace path to anything in the sandbox that reads /proc/1/cmdline (`ps`).
   */
  readonly optionsOnFd3?: string;
}

/**
 * The process to spawn for `command`; the CPU limit is the call's wall-clock limit, rounded up. With
 * `cgroupProcs` (from `sessionCgroups`), it joins the session's cgroups before bwrap starts.
 */
export function commandLaunch(sandbox: CommandSandbox, workspace: string, command: string, seconds: number, cgroupProcs: readonly string[] = []): CommandLaunch {
  if (sandbox.kind !== SandboxKind.bubblewrap) {
    return { file: 'sh', args: ['-c', command], cwd: workspace, home: workspace };
  }
  const asRoot = sandbox.setpriv !== undefined;
  const uid = sessionUid(workspace);
  const dropPrivileges = sandbox.setpriv ? [sandbox.setpriv, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--'] : [];
  const limits = [
    sandbox.prlimit,
    `--nproc=${sandbox.limits.maxProcesses}`,
    `--as=${sandbox.limits.memoryMiB * 1024 * 1024}`,
    `--cpu=${Math.max(1, Math.ceil(seconds))}`,
    '--',
  ];
  const options = [...namespaceArgs(asRoot), ...filesystemArgs(), '--bind', workspace, SANDBOX_WORKSPACE, '--chdir', SANDBOX_WORKSPACE];
  const bwrapArgs = [
    '--args',
    '3',
    '--',
    ...dropPrivileges,
    ...limits,
    'sh',
    '-c',
    command,
  ];
  const spawned = cgroupProcs.length > 0 ? joiningCgroups(cgroupProcs, sandbox.bwrap, bwrapArgs) : { file: sandbox.bwrap, args: bwrapArgs };
  return { ...spawned, cwd: workspace, home: SANDBOX_WORKSPACE, optionsOnFd3: options.map((option) => `${option}\0`).join('') };
}

const execFileAsync = promisify(execFile);

/**
 * A root worker's commands run as the session's uid, so the workspace must belong to it; files the
 * file tools wrote since the last command belong to root. `-h` changes links, never what they point at.
 */
export async function prepareWorkspace(sandbox: CommandSandbox, workspace: string): Promise<void> {
  if (sandbox.kind !== SandboxKind.bubblewrap || sandbox.setpriv === undefined) return;
  const uid = sessionUid(workspace);
  await execFileAsync('chown', ['-R', '-h', `${uid}:${uid}`, workspace]);
}

function refused(why: string): CommandSandbox {
  return {
    kind: SandboxKind.refused,
    reason: `${why}; run_command is refused because commands would run unsandboxed. Install bubblewrap, or set AGENTD_UNSANDBOXED_COMMANDS=1 on the worker to run them without a sandbox.`,
  };
}

function namespaceArgs(asRoot: boolean): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    // Unprivileged bwrap needs a user namespace, which also gives the process limit a count of its own.
    ...(asRoot ? [] : ['--unshare-user']),
  ];
}

/** A read-only system (programs, libraries, /etc), fresh /dev, /proc and /tmp, and nothing else of the host. */
function filesystemArgs(): string[] {
  const args: string[] = [];
  for (const dir of ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt']) {
    let info;
    try {
      info = lstatSync(dir);
    } catch {
      continue;
    }
    // Merged-/usr systems link /bin to usr/bin; the same link inside keeps paths like /bin/sh working.
    if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (info.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  args.push('--dev', '/dev', '--proc', '/proc', '--perms', '1777', '--tmpfs', '/tmp');
  return args;
}

function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
