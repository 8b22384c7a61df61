/** Escape attempts against the tools, one at a time: each is refused or contained, and the next call still works. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { COMMAND_PATH } from '../../src/tools/builtin/runCommand';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { runToolCall } from '../../src/tools/runToolCall';
import { type CommandSandbox, DEFAULT_COMMAND_LIMITS, detectCommandSandbox, SandboxKind } from '../../src/tools/sandbox';
import type { ToolContext, ToolOutcome } from '../../src/tools/tool';
import { requireBubblewrap, skipWithoutBubblewrap } from '../helpers/bubblewrap';
import { startHostService, type HostService } from '../helpers/hostService';

const registry = createBuiltinRegistry();
let workspace: string;
let outside: string;
const sandbox: CommandSandbox | undefined = requireBubblewrap();

beforeEach(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'agentd-sbx-ws-'));
  outside = await mkdtemp(path.join(os.tmpdir(), 'agentd-sbx-outside-'));
  await writeFile(path.join(outside, 'secret.txt'), 'top secret');
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function call(name: string, args: unknown, timeoutMs = 20_000): Promise<ToolOutcome> {
  const context: ToolContext = {
    workspace,
    signal: new AbortController().signal,
    timeoutMs,
    outputCapChars: 20_000,
    sandbox: sandbox ?? { kind: SandboxKind.refused, reason: 'no bwrap' },
  };
  return runToolCall(registry, name, JSON.stringify(args), context);
}

/** Pids of host processes whose command line contains `needle`. */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function eventuallyNone(needle: string, withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = processesWith(needle);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('file tools refuse paths outside the workspace', skipWithoutBubblewrap(sandbox), () => {
  test('../ and absolute paths are refused for read and write; the file outside is untouched', async () => {
    const relativeOut = path.relative(workspace, path.join(outside, 'secret.txt'));
    for (const target of [relativeOut, path.join(outside, 'secret.txt'), '/etc/passwd', 'a/../../x']) {
      assert.match((await call('read_file', { path: target })).output, /^error: path .* is outside the workspace$/);
      assert.match((await call('write_file', { path: target, content: 'pwned' })).output, /^error: path .* is outside the workspace$/);
    }
    assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'top secret');
    assert.match((await call('write_file', { path: 'ok.txt', content: 'fine' })).output, /^wrote 4 bytes/);
  });

  test('a symlink planted by a sandboxed command is not followed out, for read or write', async () => {
    const planted = await call('run_command', {
      command: `ln -s /etc/passwd passwd-link && ln -s ${outside} out-dir && ln -s ${outside}/secret.txt secret-link && echo planted`,
    });
    assert.match(planted.output, /^planted\nexit code: 0$/);
    for (const target of ['passwd-link', 'secret-link', 'out-dir/secret.txt']) {
      assert.match((await call('read_file', { path: target })).output, /^error: path .* leads through a symlink outside the workspace or to nothing; /);
    }
    for (const target of ['secret-link', 'out-dir/secret.txt', 'out-dir/new.txt', 'out-dir/sub/new.txt']) {
      assert.match(
        (await call('write_file', { path: target, content: 'pwned' })).output,
        /^error: path .* leads through a symlink outside the workspace or to nothing; /,
      );
    }
    assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'top secret');
    assert.equal(existsSync(path.join(outside, 'new.txt')), false);
    assert.equal(existsSync(path.join(outside, 'sub')), false);
  });

  test('a symlink made on the host to a folder outside is refused too; one inside the workspace is fine', async () => {
    await symlink(outside, path.join(workspace, 'host-link'));
    await mkdir(path.join(workspace, 'real'));
    await symlink('real', path.join(workspace, 'inner-link'));
    assert.match((await call('read_file', { path: 'host-link/secret.txt' })).output, / leads through a symlink outside the workspace or to nothing; /);
    assert.match((await call('write_file', { path: 'inner-link/a.txt', content: 'in' })).output, /^wrote 2 bytes/);
    assert.equal(await readFile(path.join(workspace, 'real', 'a.txt'), 'utf8'), 'in');
  });

  test('/workspace/… (the sandbox view) names the workspace', async () => {
    await call('write_file', { path: '/workspace/seen.txt', content: 'same file' });
    assert.equal(await readFile(path.join(workspace, 'seen.txt'), 'utf8'), 'same file');
    assert.match((await call('read_file', { path: '/workspace/../etc/passwd' })).output, /outside the workspace$/);
  });
});

describe('run_command under bubblewrap', skipWithoutBubblewrap(sandbox), () => {
  let host: HostService;

  before(async () => {
    host = await startHostService();
  });

  after(async () => {
    await host?.close();
  });

  test('the detected mode is bubblewrap', () => {
    assert.equal(sandbox?.kind, SandboxKind.bubblewrap);
  });

  test('the workspace is /workspace, writable, and holds what the file tools wrote', async () => {
    await call('write_file', { path: 'from-tool.txt', content: 'written by write_file' });
    const out = await call('run_command', { command: 'pwd; echo "$HOME"; cat from-tool.txt; echo; echo made > made.txt; cat made.txt' });
    assert.equal(out.output, '/workspace\n/workspace\nwritten by write_file\nmade\nexit code: 0');
    assert.equal(await readFile(path.join(workspace, 'made.txt'), 'utf8'), 'made\n');
    assert.match((await call('read_file', { path: 'made.txt' })).output, /^made/);
  });

  test("no process in the sandbox shows the host's workspace path (ps reads /proc/*/cmdline)", async () => {
    const out = await call('run_command', { command: 'for p in /proc/[0-9]*; do tr "\\0" " " < "$p/cmdline"; echo; done; [ -e "/proc/$$/fd/3" ] && echo "fd $((1 + 2)) open"' });
    assert.match(out.output, /^\S*bwrap --args 3 -- /m, out.output);
    assert.ok(!out.output.includes(workspace), `the host path ${workspace} leaked:\n${out.output}`);
    assert.doesNotMatch(out.output, /fd 3 open/, 'the options pipe is closed before the command starts');
  });

  test('a command that tries the network cannot reach even the host loopback', async () => {
    // bash's /dev/tcp: no client program needed, and bash is on every Debian system.
    const out = await call('run_command', {
      command: `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${host.port} && cat <&3'; getent hosts example.com; echo done`,
    });
    assert.doesNotMatch(out.output, /HELLO-FROM-HOST/);
    assert.match(out.output, new RegExp(`/dev/tcp/127.0.0.1/${host.port}: (Connection refused|Network is unreachable)`));
    assert.equal(host.connections(), 0, 'nothing reached the host server');
    assert.match(out.output, /done\nexit code: 0$/);
  });

  test('a command that writes outside the workspace fails, and the host is unchanged', async () => {
    const hostFile = path.join(outside, 'pwned.txt');
    const out = await call('run_command', {
      command: `echo x > /etc/agentd-pwned; echo x > /usr/agentd-pwned; echo x > ${hostFile}; mkdir -p ${outside} && echo x > ${hostFile} && echo private-tmp-only`,
    });
    assert.match(out.output, /\/etc\/agentd-pwned: Read-only file system/);
    assert.match(out.output, /\/usr\/agentd-pwned: Read-only file system/);
    // The second attempt lands in the sandbox's private /tmp, which vanishes with it.
    assert.match(out.output, /private-tmp-only\nexit code: 0$/);
    assert.equal(existsSync('/etc/agentd-pwned'), false);
    assert.equal(existsSync('/usr/agentd-pwned'), false);
    assert.equal(existsSync(hostFile), false);
    assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'top secret');
  });

  test('the host is not visible beyond the system folders', async () => {
    const out = await call('run_command', { command: `ls ${outside} ${os.homedir()} 2>&1; ls /` });
    assert.match(out.output, /No such file or directory/);
    assert.doesNotMatch(out.output, /secret\.txt/);
  });

  test('a fork bomb hits the process limit and is cleaned up; the next command runs', async () => {
    const out = await call('run_command', { command: 'bomb(){ bomb | bomb & }; bomb; sleep 2; echo agentd-bomb-over', timeoutSeconds: 8 }, 20_000);
    assert.match(out.output, /Cannot fork|Resource temporarily unavailable|fork/i);
    assert.match(out.output, /(exit code: \d+|killed after 8s \(timeout\))$/);
    assert.deepEqual(await eventuallyNone('bomb', 5000), [], 'no bomb process left');
    assert.equal((await call('run_command', { command: 'echo alive' })).output, 'alive\nexit code: 0');
  });

  test('a command that never ends is killed at its timeout with everything it started', async () => {
    const started = Date.now();
    const out = await call('run_command', { command: 'sleep 987654 & sleep 987655', timeoutSeconds: 1 });
    assert.match(out.output, /killed after 1s \(timeout\)$/);
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    assert.deepEqual(await eventuallyNone('sleep 98765', 3000), [], 'no sleeper left');
  });

  test('memory beyond the address-space limit cannot be allocated', async () => {
    const tooMuch = (DEFAULT_COMMAND_LIMITS.memoryMiB + 512) * 1024 * 1024;
    const out = await call('run_command', { command: `awk 'BEGIN { s = sprintf("%${tooMuch}s", ""); print "allocated" }'; echo status=$?` });
    assert.doesNotMatch(out.output, /allocated/);
    assert.match(out.output, /status=[1-9]\d*\nexit code: 0$/);
  });

  test("the command's PATH is the fixed system one, not the worker's", async () => {
    const workerPath = process.env['PATH'];
    process.env['PATH'] = `/opt/worker-private/bin:${workerPath ?? ''}`;
    try {
      const out = await call('run_command', { command: 'echo "$PATH"' });
      assert.equal(out.output, `${COMMAND_PATH}\nexit code: 0`);
    } finally {
      process.env['PATH'] = workerPath;
    }
  });

  test("the worker's environment does not reach the command", async () => {
    process.env['OPENAI_API_KEY'] = 'sk-test-must-not-leak';
    try {
      const out = await call('run_command', { command: 'env; cat /proc/1/environ 2>/dev/null | tr "\\0" "\\n"' });
      assert.doesNotMatch(out.output, /sk-test-must-not-leak/);
    } finally {
      delete process.env['OPENAI_API_KEY'];
    }
  });
});

describe('without bubblewrap', () => {
  test('run_command is refused with the reason and the opt-out, and file tools still work', async () => {
    const refused = detectCommandSandbox({ unsandboxedCommands: false, limits: DEFAULT_COMMAND_LIMITS, searchPath: '' });
    assert.equal(refused.kind, SandboxKind.refused);
    const context: ToolContext = { workspace, signal: new AbortController().signal, timeoutMs: 5000, outputCapChars: 5000, sandbox: refused };
    const out = await runToolCall(registry, 'run_command', JSON.stringify({ command: 'echo hi' }), context);
    assert.match(out.output, /^error: bwrap \(Debian package bubblewrap\) .*not found.*AGENTD_UNSANDBOXED_COMMANDS=1/);
    assert.match((await runToolCall(registry, 'write_file', JSON.stringify({ path: 'a.txt', content: 'x' }), context)).output, /^wrote/);
  });

  test('the explicit opt-out runs commands directly', () => {
    const direct = detectCommandSandbox({ unsandboxedCommands: true, limits: DEFAULT_COMMAND_LIMITS, searchPath: '' });
    assert.equal(direct.kind, SandboxKind.unsandboxed);
  });
});
