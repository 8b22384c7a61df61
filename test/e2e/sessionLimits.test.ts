/**
 * Each session its own limits (issue 26): a root worker runs each workspace's commands as a uid of
 * its own and, where the host has cgroup v1 controllers, in cgroups of their own. One session holding
 * all the processes it may have, or filling its memory, leaves another session's commands running.
 * Before, every session ran as `nobody` under one process limit, and a neighbour's `ls` failed with
 * `Cannot fork`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { detectCommandCgroups } from '../../src/tools/commandCgroups';
import { sessionUid } from '../../src/tools/commandUser';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { runToolCall } from '../../src/tools/runToolCall';
import { describeSandbox, detectCommandSandbox, SandboxKind, type CommandSandbox } from '../../src/tools/sandbox';
import type { ToolOutcome } from '../../src/tools/tool';
import { requireBubblewrap } from '../helpers/bubblewrap';

const registry = createBuiltinRegistry();
const asRoot = process.getuid?.() === 0;
const bubblewrap = requireBubblewrap();
const skip = !bubblewrap ? { skip: 'bubblewrap is not usable here' } : !asRoot ? { skip: 'per-session uids and cgroups are for a root worker' } : {};

/** A sandbox like the worker's, with small limits so a test can reach them quickly. */
function sandboxWith(limits: { memoryMiB: number; maxProcesses: number }): CommandSandbox {
  return detectCommandSandbox({ unsandboxedCommands: false, limits: { cpus: 1, ...limits }, searchPath: process.env.PATH ?? '' });
}

function runIn(sandbox: CommandSandbox, workspace: string, command: string, timeoutMs = 20_000): Promise<ToolOutcome> {
  const context = { workspace, signal: new AbortController().signal, timeoutMs, outputCapChars: 20_000, sandbox };
  return runToolCall(registry, 'run_command', JSON.stringify({ command }), context);
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Processes on the host whose real uid is `uid`. */
async function processesOf(uid: number): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  let count = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) count += 1;
  }
  return count;
}

describe('each session its own limits', skip, () => {
  let root: string;
  let noisy: string;
  let innocent: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentd-limits-'));
    noisy = path.join(root, 'noisy');
    innocent = path.join(root, 'innocent');
    await mkdir(noisy, { mode: 0o700 });
    await mkdir(innocent, { mode: 0o700 });
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("runs each workspace's commands as a uid of its own, in the session's cgroups", async () => {
    const sandbox = sandboxWith({ memoryMiB: 2048, maxProcesses: 256 });
    const cgroups = detectCommandCgroups();
    console.log(`session limits on this host: ${describeSandbox(sandbox)}`);
    for (const workspace of [noisy, innocent]) {
      const out = (await runIn(sandbox, workspace, 'id -u; grep -E ":(pids|memory|cpu|cpu,cpuacct):" /proc/self/cgroup')).output;
      const uid = sessionUid(workspace);
      assert.match(out, new RegExp(`^${uid}\\n`), out);
      if ('cgroups' in cgroups) {
        const groups = cgroups.cgroups.cpu === undefined ? 2 : 3;
        assert.equal((out.match(new RegExp(`/agentd-commands/session-${uid}$`, 'gm')) ?? []).length, groups, out);
      }
    }
    assert.notEqual(sessionUid(noisy), sessionUid(innocent));
    if ('cgroups' in cgroups && cgroups.cgroups.cpu !== undefined) {
      // Read from the host while a command runs: the group goes when its last command ends.
      const quota = path.join(cgroups.cgroups.cpu, `session-${sessionUid(noisy)}`, 'cpu.cfs_quota_us');
      const running = runIn(sandbox, noisy, 'sleep 2');
      await eventually(async () => (await readFile(quota, 'utf8').catch(() => '')).trim() === '100000', 'a quota of one CPU on the session');
      await running;
    }
  });

  it("a session holding every process it may have leaves another session's commands running", { timeout: 60_000 }, async () => {
    const sandbox = sandboxWith({ memoryMiB: 2048, maxProcesses: 64 });
    // bash, not dash: at the limit bash keeps retrying the fork, holding what it has, where dash gives up and exits.
    const hog = runIn(sandbox, noisy, "bash -c 'for i in $(seq 1 100); do sleep 30 & done; wait' 2>&1", 12_000);
    // Wait until the noisy session really holds its whole allowance.
    await eventually(async () => (await processesOf(sessionUid(noisy))) >= 60, 'the noisy session to hold its processes').catch(async (error: unknown) => {
      throw new Error(`${String(error)}; its command said: ${(await hog).output}`);
    });
    const neighbour = await runIn(sandbox, innocent, 'for i in $(seq 1 20); do true & done; wait; ls -a; echo ran');
    assert.match(neighbour.output, /ran\nexit code: 0$/, neighbour.output);
    const hogged = await hog;
    assert.match(hogged.output, /fork: (retry: )?Resource temporarily unavailable/, 'the noisy session hit its own limit');
    assert.match(hogged.output, /killed after 12s \(timeout\)$/);
  });

  it("one session's commands together stay within memoryMiB, another session's are not touched", { timeout: 60_000 }, async (t) => {
    if (!('cgroups' in detectCommandCgroups())) {
      t.skip('no cgroup v1 memory controller here: memory is limited per process only');
      return;
    }
    const sandbox = sandboxWith({ memoryMiB: 256, maxProcesses: 64 });
    // `tail` keeps a line without a newline whole: 100 MB of zeros is 100 MB it holds, until its input
    // ends 3 s later, so the three hold theirs at once however slowly a busy host starts them.
    const hold = (label: string) => `( (head -c 100M /dev/zero; sleep 3) | tail > /dev/null; echo ${label}=$?) &`;
    const [noisyOut, innocentOut] = await Promise.all([
      runIn(sandbox, noisy, `${hold('a')} ${hold('b')} ${hold('c')} wait`),
      runIn(sandbox, innocent, `${hold('d')} wait`),
    ]);
    assert.match(noisyOut.output, /=137/, `three 100 MB holders in a 256 MiB session: one is killed\n${noisyOut.output}`);
    assert.match(innocentOut.output, /^d=0$/m, innocentOut.output);
  });
});

describe('cgroup detection', () => {
  it('says why when the host has only cgroup v2 without a delegated subtree', async () => {
    const proc = await mkdtemp(path.join(os.tmpdir(), 'agentd-proc-'));
    try {
      await writeFile(path.join(proc, 'mounts'), 'cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n');
      await writeFile(path.join(proc, 'cgroup'), '0::/user.slice/worker.service\n');
      const found = detectCommandCgroups(proc);
      assert.ok('unavailable' in found);
      assert.match(found.unavailable, /no cgroup v1 pids hierarchy \(cgroup v2 needs a delegated subtree\)/);
    } finally {
      await rm(proc, { recursive: true, force: true });
    }
  });

  it('a sandbox without cgroups says memory is limited per process only', () => {
    const sandbox: CommandSandbox = {
      kind: SandboxKind.bubblewrap,
      bwrap: '/usr/bin/bwrap',
      prlimit: '/usr/bin/prlimit',
      setpriv: '/usr/bin/setpriv',
      limits: { memoryMiB: 2048, maxProcesses: 256, cpus: 1 },
      cgroups: { unavailable: 'no cgroup v1 pids hierarchy' },
    };
    assert.match(describeSandbox(sandbox), /each session as a uid of its own; no session cgroup: no cgroup v1 pids hierarchy, so memory is limited per process only/);
  });
});
