/** Tests for the built-in tools: workspace confinement, file round trips, run_command limits, call validation. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants as fsConstants, existsSync, readFileSync, statSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { capOutput } from '../../src/tools/capOutput';
import { withinDeadline } from '../../src/tools/deadline';
import { LIST_ENTRY_CAP } from '../../src/tools/builtin/listFiles';
import { OutputCollector } from '../../src/tools/outputCollector';
import { createBuiltinRegistry, ToolRegistry } from '../../src/tools/registry';
import { runToolCall } from '../../src/tools/runToolCall';
import { SandboxKind } from '../../src/tools/sandbox';
import type { ToolContext, ToolOutcome, TranscriptReader } from '../../src/tools/tool';
import { ensureWorkspace, resolveInWorkspace } from '../../src/tools/workspace';

const registry = createBuiltinRegistry();
let workspace: string;
let outside: string;

beforeEach(async () => {
  // In a folder of its own, so what an escape would write beside it cannot already be there.
  workspace = path.join(await mkdtemp(path.join(os.tmpdir(), 'agentd-ws-')), 'workspace');
  await mkdir(workspace);
  outside = await mkdtemp(path.join(os.tmpdir(), 'agentd-outside-'));
  await writeFile(path.join(outside, 'secret.txt'), 'top secret');
});

afterEach(async () => {
  await rm(path.dirname(workspace), { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function ctx(overrides: Partial<ToolContext> = {}): ToolContext {
  // Unsandboxed: these tests check the process-group handling with host pids; sandbox.test.ts covers bwrap.
  const sandbox = { kind: SandboxKind.unsandboxed };
  return { workspace, signal: new AbortController().signal, timeoutMs: 10_000, outputCapChars: 10_000, sandbox, ...overrides };
}

function call(name: string, args: unknown, context: ToolContext = ctx()): Promise<ToolOutcome> {
  return runToolCall(registry, name, JSON.stringify(args), context);
}

/** True while `pid` runs; a zombie (killed, not yet reaped) counts as dead. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

async function waitUntilDead(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

describe('file tools', () => {
  test('write, read and list round trip', async () => {
    const wrote = await call('write_file', { path: 'src/deep/hello.txt', content: 'héllo\nworld' });
    assert.equal(wrote.output, 'wrote 12 bytes to src/deep/hello.txt');
    assert.equal(await readFile(path.join(workspace, 'src/deep/hello.txt'), 'utf8'), 'héllo\nworld');

    assert.equal((await call('read_file', { path: 'src/deep/hello.txt' })).output, 'héllo\nworld');

    await call('write_file', { path: 'b.txt', content: '' });
    await call('write_file', { path: 'a.txt', content: 'a' });
    assert.equal((await call('list_files', {})).output, 'a.txt\nb.txt\nsrc/');
    assert.equal(
      (await call('list_files', { path: '.', recursive: true })).output,
      'a.txt\nb.txt\nsrc/\nsrc/deep/\nsrc/deep/hello.txt',
    );
    assert.equal((await call('list_files', { path: 'src' })).output, 'deep/');
  });

  test('read_file pages by char offset and says where to continue', async () => {
    await writeFile(path.join(workspace, 'f.txt'), 'abcdefghij');
    const first = await call('read_file', { path: 'f.txt', limit: 4 });
    assert.equal(first.output, 'abcd\n[showing chars 0-4 of 10 of "f.txt"; call again with offset=4]');
    const middle = await call('read_file', { path: 'f.txt', offset: 4, limit: 4 });
    assert.equal(middle.output, 'efgh\n[showing chars 4-8 of 10 of "f.txt"; call again with offset=8]');
    assert.equal((await call('read_file', { path: 'f.txt', offset: 8, limit: 4 })).output, 'ij');
    const past = await call('read_file', { path: 'f.txt', offset: 11 });
    assert.match(past.output, /^error: offset 11 is past the end of "f.txt" \(10 chars\)/);
  });

  test('read_file by default returns a window that fits the cap, note included', async () => {
    await writeFile(path.join(workspace, 'big.txt'), 'x'.repeat(5000));
    const out = await call('read_file', { path: 'big.txt' }, ctx({ outputCapChars: 1000 }));
    assert.ok(out.output.length <= 1000, `length ${out.output.length}`);
    assert.doesNotMatch(out.output, /omitted/);
    assert.match(out.output, /\[showing chars 0-(\d+) of 5000 of "big.txt"; call again with offset=\1\]$/);
  });

  test('read_file of a missing file, a folder or a binary file is an error the model can read', async () => {
    assert.match((await call('read_file', { path: 'nope.txt' })).output, /^error: path "nope.txt": no such file/);
    await mkdir(path.join(workspace, 'dir'));
    assert.match((await call('read_file', { path: 'dir' })).output, /^error: .*"dir" is a folder/);
    await writeFile(path.join(workspace, 'bin'), Buffer.from([1, 0, 2]));
    assert.match((await call('read_file', { path: 'bin' })).output, /^error: "bin" looks binary/);
  });

  test('list_files marks folders and stops at the entry cap with a note', async () => {
    await mkdir(path.join(workspace, 'many'));
    for (let i = 0; i < LIST_ENTRY_CAP + 5; i++) await writeFile(path.join(workspace, 'many', `f${i}`), '');
    const out = (await call('list_files', { path: 'many' })).output;
    const lines = out.split('\n');
    assert.equal(lines.length, LIST_ENTRY_CAP + 1);
    assert.match(lines.at(-1) ?? '', /stopped after \d+ entries/);
    assert.match((await call('list_files', { path: 'many/f1' })).output, /^error: .*is a file, not a folder/);
  });
});

describe('file tools on pipes and other special files', () => {
  function mkfifo(name: string): string {
    const file = path.join(workspace, name);
    execFileSync('mkfifo', [file]);
    return file;
  }

  test('read_file, write_file and list_files refuse a named pipe at once, without opening it blocking', async () => {
    mkfifo('p');
    assert.equal((await call('read_file', { path: 'p' })).output, 'error: path "p" is a named pipe (FIFO); file tools read and write only regular files');
    assert.equal((await call('write_file', { path: 'p', content: 'x' })).output, 'error: path "p" is a named pipe (FIFO); file tools read and write only regular files');
    assert.match((await call('list_files', { path: 'p' })).output, /^error: path "p" is a named pipe \(FIFO\)/);
    assert.equal((await call('list_files', {})).output, 'p (not a regular file)');
  });

  test('a write onto a pipe someone reads is refused after the open, and nothing reaches the reader', async () => {
    const fifo = mkfifo('p');
    // The reader end, opened non-blocking as the tool does; with it open, open(2) for writing succeeds.
    const reader = await openFile(fifo, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    try {
      const out = await call('write_file', { path: 'p', content: 'leaked' });
      assert.match(out.output, /^error: path "p" is a named pipe \(FIFO\)/);
      const buffer = Buffer.alloc(16);
      const read = await reader.read(buffer, 0, 16, null).catch((error: NodeJS.ErrnoException) => error.code);
      assert.ok(read === 'EAGAIN' || (typeof read === 'object' && read.bytesRead === 0), `reader got ${JSON.stringify(read)}`);
    } finally {
      await reader.close();
    }
  });

  test('twelve reads of pipes leave the threadpool free: a regular read after them still answers', async () => {
    for (let i = 0; i < 12; i++) mkfifo(`p${i}`);
    await writeFile(path.join(workspace, 'ok.txt'), 'fine');
    // Before the fix each of these held one of libuv's 4 threads in open(2) forever, and the last read hung.
    const refusals = await Promise.all(Array.from({ length: 12 }, (_, i) => call('read_file', { path: `p${i}` })));
    assert.ok(refusals.every((out) => out.output.startsWith('error: ')), JSON.stringify(refusals));
    assert.equal((await call('read_file', { path: 'ok.txt' })).output, 'fine');
  });

  test('a unix socket is refused by its kind, and list_files marks it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(workspace, 'sock'), resolve));
    try {
      assert.equal((await call('read_file', { path: 'sock' })).output, 'error: path "sock" is a socket; file tools read and write only regular files');
      assert.equal((await call('write_file', { path: 'sock', content: 'x' })).output, 'error: path "sock" is a socket; file tools read and write only regular files');
      assert.equal((await call('list_files', {})).output, 'sock (not a regular file)');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('withinDeadline answers by the time limit, and on abort, even if the work never settles', async () => {
    const never = () => new Promise<never>(() => {});
    await assert.rejects(withinDeadline(ctx({ timeoutMs: 50 }), 'read_file "x"', never), /read_file "x" did not finish within 0.05s/);
    const controller = new AbortController();
    const pending = withinDeadline(ctx({ signal: controller.signal }), 'read_file "x"', never);
    controller.abort(new Error('cancelled by the test'));
    await assert.rejects(pending, /cancelled by the test/);
  });
});

describe('read_output', () => {
  /** The boundary the activity implements over the store: here, tool outputs by seq in memory. */
  function reader(outputs: Readonly<Record<number, string>>): TranscriptReader & { readonly asked: number[] } {
    const asked: number[] = [];
    return {
      asked,
      async readOutput(seq) {
        asked.push(seq);
        return outputs[seq];
      },
      async search() {
        return [];
      },
    };
  }

  test('pages through the original output by seq and says where to continue', async () => {
    const transcript = reader({ 7: 'abcdefghij', 8: 'other' });
    const first = await call('read_output', { seq: 7, limit: 4 }, ctx({ transcript }));
    assert.equal(first.output, 'abcd\n[showing chars 0-4 of 10 of seq 7; call again with offset=4]');
    const middle = await call('read_output', { seq: 7, offset: 4, limit: 4 }, ctx({ transcript }));
    assert.equal(middle.output, 'efgh\n[showing chars 4-8 of 10 of seq 7; call again with offset=8]');
    assert.equal((await call('read_output', { seq: 7, offset: 8, limit: 4 }, ctx({ transcript }))).output, 'ij');
    assert.equal((await call('read_output', { seq: 8 }, ctx({ transcript }))).output, 'other');
    assert.deepEqual(transcript.asked, [7, 7, 7, 8]);
    const past = await call('read_output', { seq: 7, offset: 11 }, ctx({ transcript }));
    assert.equal(past.output, 'error: offset 11 is past the end of seq 7 (10 chars)');
  });

  test('by default returns a window that fits the cap, note included, where the context view was cut', async () => {
    const original = 'H'.repeat(3000) + 'MIDDLE' + 'T'.repeat(3000);
    const transcript = reader({ 3: original });
    const out = await call('read_output', { seq: 3 }, ctx({ transcript, outputCapChars: 1000 }));
    assert.ok(out.output.length <= 1000, `length ${out.output.length}`);
    assert.doesNotMatch(out.output, /omitted/);
    const note = /\[showing chars 0-(\d+) of 6006 of seq 3; call again with offset=\1\]$/.exec(out.output);
    assert.ok(note, out.output.slice(-120));
    // Paging on from each note reaches the middle the head-and-tail view leaves out, and the whole text.
    let offset = 0;
    let whole = '';
    for (let page = 0; page < 20; page += 1) {
      const next = await call('read_output', { seq: 3, offset }, ctx({ transcript, outputCapChars: 1000 }));
      const found = /\n\[showing chars \d+-(\d+) of \d+ of seq 3; call again with offset=\d+\]$/.exec(next.output);
      whole += found === null ? next.output : next.output.slice(0, found.index);
      if (found === null) break;
      offset = Number(found[1]);
    }
    assert.equal(whole, original);
    // A limit above the cap is lowered to it, so the note still fits.
    const big = await call('read_output', { seq: 3, limit: 5000 }, ctx({ transcript, outputCapChars: 1000 }));
    assert.ok(big.output.length <= 1000, `length ${big.output.length}`);
    assert.doesNotMatch(big.output, /omitted/);
    assert.match(big.output, new RegExp(`\\[showing chars 0-${note?.[1]} of 6006 of seq 3; call again with offset=\\d+\\]$`));
  });

  test('does not split an emoji at the end of a window', async () => {
    const transcript = reader({ 1: 'ab😀cd' });
    const out = await call('read_output', { seq: 1, limit: 3 }, ctx({ transcript }));
    assert.equal(out.output, 'ab\n[showing chars 0-2 of 6 of seq 1; call again with offset=2]');
  });

  test('an unknown seq, an empty output and a session without transcript are errors or notes naming the seq', async () => {
    const transcript = reader({ 2: '' });
    assert.equal((await call('read_output', { seq: 2 }, ctx({ transcript }))).output, '[seq 2 is empty]');
    assert.equal(
      (await call('read_output', { seq: 99 }, ctx({ transcript }))).output,
      'error: seq 99 is not stored for this session',
    );
    assert.match((await call('read_output', { seq: 5 })).output, /^error: cannot read the output of seq 5: /);
    assert.match((await call('read_output', { seq: -1 }, ctx({ transcript }))).output, /^error: invalid arguments for read_output: seq: /);
    assert.match((await call('read_output', { seq: 1.5 }, ctx({ transcript }))).output, /^error: invalid arguments for read_output: seq: /);
    assert.equal(registry.get('read_output')?.effect, 'read');
  });
});

describe('workspace confinement', () => {
  test('.. escapes and absolute paths outside are refused', async () => {
    const up = await call('read_file', { path: '../x' });
    assert.match(up.output, /^error: path "\.\.\/x" is outside the workspace/);
    const sneaky = await call('write_file', { path: 'a/../../x', content: 'no' });
    assert.match(sneaky.output, /^error: path "a\/\.\.\/\.\.\/x" is outside the workspace/);
    assert.equal(existsSync(path.join(path.dirname(workspace), 'x')), false);
    assert.match((await call('read_file', { path: '/etc/passwd' })).output, /^error: path "\/etc\/passwd" is outside/);
    assert.match((await call('list_files', { path: '/' })).output, /^error: path "\/" is outside/);
  });

  test('absolute paths inside the workspace and harmless .. are accepted', async () => {
    await writeFile(path.join(workspace, 'in.txt'), 'inside');
    assert.equal((await call('read_file', { path: path.join(workspace, 'in.txt') })).output, 'inside');
    assert.equal((await call('read_file', { path: 'sub/../in.txt' })).output, 'inside');
    assert.equal(await resolveInWorkspace(workspace, 'new/file.txt'), path.join(await realpath(workspace), 'new/file.txt'));
  });

  test('a symlink pointing outside cannot be read or written through', async () => {
    await symlink(outside, path.join(workspace, 'link'));
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'secret-link.txt'));

    const readDir = await call('read_file', { path: 'link/secret.txt' });
    assert.match(readDir.output, /^error: path "link\/secret.txt" leads through a symlink/);
    const readFileLink = await call('read_file', { path: 'secret-link.txt' });
    assert.match(readFileLink.output, /^error: path "secret-link.txt" leads through a symlink/);
    assert.doesNotMatch(readFileLink.output, /top secret/);

    const write = await call('write_file', { path: 'link/planted.txt', content: 'x' });
    assert.match(write.output, /^error: path "link\/planted.txt" leads through a symlink/);
    assert.equal(existsSync(path.join(outside, 'planted.txt')), false);
    const overwrite = await call('write_file', { path: 'secret-link.txt', content: 'x' });
    assert.match(overwrite.output, /^error: /);
    assert.equal(await readFile(path.join(outside, 'secret.txt'), 'utf8'), 'top secret');

    assert.match((await call('list_files', { path: 'link' })).output, /^error: path "link" leads through a symlink/);
  });

  test('a dangling symlink pointing outside cannot be written through', async () => {
    await symlink(path.join(outside, 'not-yet'), path.join(workspace, 'dangling'));
    const out = await call('write_file', { path: 'dangling', content: 'x' });
    assert.match(out.output, /^error: path "dangling" leads through a symlink outside the workspace or to nothing; /);
    assert.equal(existsSync(path.join(outside, 'not-yet')), false);
  });

  test('errors are no oracle for the host: links to existing, missing and /proc targets read the same', async () => {
    const targets = {
      passwd: '/etc/passwd',
      missing: path.join(outside, 'does-not-exist'),
      missingDeep: '/nonexistent-agentd/x/y',
      cwd: '/proc/self/cwd',
      environ: '/proc/self/environ',
      fd: '/proc/self/fd/0',
      secret: path.join(outside, 'secret.txt'),
    };
    for (const [name, target] of Object.entries(targets)) await symlink(target, path.join(workspace, name));
    for (const tool of ['read_file', 'write_file', 'list_files'] as const) {
      for (const name of Object.keys(targets)) {
        const out = (await call(tool, { path: name, content: 'x' })).output;
        const expected = `error: path "${name}" leads through a symlink outside the workspace or to nothing; ` +
          'file tools follow symlinks only to existing files and folders inside it';
        assert.equal(out, expected, `${tool} ${name}`);
      }
    }
    // Through a linked folder, too: nothing after the link's name says what lies beyond it.
    await symlink('/proc/self', path.join(workspace, 'self'));
    for (const below of ['self/cwd', 'self/environ', 'self/fd/3', 'self/nope']) {
      assert.match((await call('read_file', { path: below })).output, /^error: path "self\/[a-z0-9/]+" leads through a symlink outside the workspace or to nothing; /);
    }
    assert.equal(existsSync(targets.missing), false);
  });

  test('ensureWorkspace creates the session folder and refuses ids that are not one folder name', async () => {
    const dir = await ensureWorkspace(workspace, 'session-1');
    assert.equal(dir, path.join(workspace, 'session-1'));
    assert.equal(existsSync(dir), true);
    assert.equal((statSync(dir).mode & 0o777).toString(8), '700', "private to the worker's user");
    for (const bad of ['', '.', '..', 'a/b', '../evil', 'a\\b', 'x'.repeat(300)]) {
      await assert.rejects(ensureWorkspace(workspace, bad), (err: Error) => err.message.startsWith('invalid sessionId: '), bad);
    }
  });
});

describe('run_command', () => {
  test('reports the exit code and captures stderr; a nonzero exit is a normal result', async () => {
    const out = await call('run_command', { command: 'echo out; echo err >&2; exit 3' });
    assert.equal(out.finished, undefined);
    assert.match(out.output, /out\n/);
    assert.match(out.output, /err\n/);
    assert.match(out.output, /\nexit code: 3$/);
    assert.equal((await call('run_command', { command: 'true' })).output, 'exit code: 0');
  });

  test('runs in the workspace', async () => {
    await writeFile(path.join(workspace, 'marker.txt'), '');
    assert.match((await call('run_command', { command: 'ls' })).output, /^marker.txt\nexit code: 0$/);
  });

  test('caps 1 MB of output to the cap, keeping head, tail and the exit line', async () => {
    const cap = 2000;
    const out = await call(
      'run_command',
      { command: "head -c 1000000 /dev/zero | tr '\\0' a; echo; echo THE-END" },
      ctx({ outputCapChars: cap }),
    );
    assert.ok(out.output.length <= cap, `length ${out.output.length}`);
    assert.match(out.output, /^a+\n\[\.\.\. \d+ chars omitted \.\.\.\]\n/);
    assert.match(out.output, /THE-END\nexit code: 0$/);
  });

  test('a timeout kills the command and its children quickly and says so', async () => {
    const started = Date.now();
    const out = await call('run_command', { command: 'sleep 30 & echo $! > child.pid; sleep 30', timeoutSeconds: 1 });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 2500, `took ${elapsed} ms`);
    assert.match(out.output, /killed after 1s \(timeout\)$/);
    const childPid = Number(await readFile(path.join(workspace, 'child.pid'), 'utf8'));
    assert.ok(childPid > 0);
    assert.equal(await waitUntilDead(childPid, 1000), true, 'background child still alive');
  });

  test('timeoutSeconds above the call limit is lowered to it', async () => {
    const started = Date.now();
    const out = await call('run_command', { command: 'sleep 30', timeoutSeconds: 999 }, ctx({ timeoutMs: 500 }));
    assert.ok(Date.now() - started < 2000);
    assert.match(out.output, /^\[timeoutSeconds lowered to 0.5/);
    assert.match(out.output, /killed after 0.5s \(timeout\)$/);
  });

  test('background processes are killed when the command ends, without waiting for them', async () => {
    const started = Date.now();
    const out = await call('run_command', { command: 'sleep 30 & echo $! > bg.pid; echo started' });
    assert.ok(Date.now() - started < 2500);
    assert.equal(out.output, 'started\nexit code: 0');
    const bgPid = Number(await readFile(path.join(workspace, 'bg.pid'), 'utf8'));
    assert.equal(await waitUntilDead(bgPid, 1000), true, 'background process still alive');
  });

  test('aborting the signal kills the command and rejects', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const running = call(
      'run_command',
      { command: 'sleep 30 & echo $! > child.pid; sleep 30' },
      ctx({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(new Error('cancelled by test')), 300);
    await assert.rejects(running, /cancelled by test/);
    assert.ok(Date.now() - started < 2500);
    const childPid = Number(await readFile(path.join(workspace, 'child.pid'), 'utf8'));
    assert.equal(await waitUntilDead(childPid, 1000), true, 'child still alive after abort');
  });

  test("the worker's environment is not passed through", async () => {
    const saved = process.env['OPENAI_API_KEY'];
    process.env['OPENAI_API_KEY'] = 'sk-test-must-not-leak';
    try {
      const out = await call('run_command', { command: 'env' });
      assert.match(out.output, /exit code: 0$/);
      assert.doesNotMatch(out.output, /OPENAI_API_KEY|sk-test-must-not-leak/);
      assert.match(out.output, new RegExp(`^HOME=${workspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    } finally {
      if (saved === undefined) delete process.env['OPENAI_API_KEY'];
      else process.env['OPENAI_API_KEY'] = saved;
    }
  });
});

describe('runToolCall and the registry', () => {
  test('invalid JSON is an error naming the tool', async () => {
    const out = await runToolCall(registry, 'write_file', '{"path": "a.txt", ', ctx());
    assert.match(out.output, /^error: invalid JSON arguments for write_file: /);
  });

  test('schema errors name the field', async () => {
    const out = await call('write_file', { path: 'a.txt', content: 42 });
    assert.equal(out.output, 'error: invalid arguments for write_file: content: expected string, received number');
    const missing = await call('read_file', {});
    assert.match(missing.output, /^error: invalid arguments for read_file: path: expected string/);
    const negative = await call('read_file', { path: 'a', offset: -1 });
    assert.match(negative.output, /^error: invalid arguments for read_file: offset: /);
    assert.equal(existsSync(path.join(workspace, 'a.txt')), false);
  });

  test('an unknown tool is an error listing the available ones', async () => {
    const out = await call('delete_everything', {});
    assert.match(out.output, /^error: unknown tool "delete_everything"; available tools: read_file, write_file/);
  });

  test('empty arguments count as {}', async () => {
    await writeFile(path.join(workspace, 'only.txt'), '');
    assert.equal((await runToolCall(registry, 'list_files', '', ctx())).output, 'only.txt');
  });

  test('finish ends the session with the answer', async () => {
    const out = await call('finish', { answer: '42' });
    assert.deepEqual(out, { output: 'session finished', finished: { answer: '42' } });
  });

  test('every outcome is capped, errors included', async () => {
    const out = await call('read_file', { path: 'x'.repeat(500) }, ctx({ outputCapChars: 100 }));
    assert.ok(out.output.startsWith('error: '));
    assert.ok(out.output.length <= 100, `length ${out.output.length}`);
    assert.match(out.output, /chars omitted/);
  });

  test('specs() gives each tool a JSON schema with the right required fields', () => {
    const specs = new Map(registry.specs().map((s) => [s.function.name, s.function]));
    assert.deepEqual([...specs.keys()], ['read_file', 'write_file', 'list_files', 'run_command', 'read_output', 'search_transcript', 'delegate', 'finish']);
    const required = (name: string): unknown => specs.get(name)?.parameters['required'];
    assert.deepEqual(required('read_file'), ['path']);
    assert.deepEqual(required('write_file'), ['path', 'content']);
    // Fields with defaults are optional to the model.
    assert.equal(required('list_files'), undefined);
    assert.deepEqual(required('run_command'), ['command']);
    assert.deepEqual(required('finish'), ['answer']);
    assert.deepEqual(required('read_output'), ['seq']);
    assert.deepEqual(required('delegate'), ['task']);
    const readProps = specs.get('read_file')?.parameters['properties'] as Record<string, { description?: string }>;
    assert.match(readProps['offset']?.description ?? '', /Char offset/);
    assert.equal(specs.get('read_file')?.parameters['$schema'], undefined);
  });

  test('duplicate tool names are refused', () => {
    const [first] = registry.specs();
    const tool = registry.get(first?.function.name ?? '');
    assert.ok(tool);
    assert.throws(() => new ToolRegistry([tool, tool]), /duplicate tool name "read_file"/);
  });
});

describe('capOutput and OutputCollector', () => {
  test('capOutput keeps short text and cuts long text to the cap, head larger than tail', () => {
    assert.equal(capOutput('short', 10), 'short');
    const text = 'H'.repeat(5000) + 'T'.repeat(5000);
    const out = capOutput(text, 1000);
    assert.ok(out.length <= 1000);
    const [head = '', tail = ''] = out.split(/\n\[\.\.\. \d+ chars omitted \.\.\.\]\n/);
    assert.ok(head.length > 3 * tail.length && tail.length > 0, `head ${head.length} tail ${tail.length}`);
    const omitted = Number(/(\d+) chars omitted/.exec(out)?.[1]);
    assert.equal(omitted + head.length + tail.length, text.length);
  });

  test('OutputCollector gives the same result as capOutput on the whole text, in bounded memory', () => {
    const chunks = Array.from({ length: 300 }, (_, i) => `chunk ${i} `.repeat(i % 7 + 1));
    const whole = chunks.join('');
    for (const cap of [50, 400, 5000, whole.length + 10]) {
      const collector = new OutputCollector(cap);
      for (const c of chunks) collector.push(c);
      assert.equal(collector.totalChars, whole.length);
      assert.equal(collector.text(cap), capOutput(whole, cap), `cap ${cap}`);
    }
  });
});
