/**
 * The README and docs/guide as a user meets them: the README stays a front door (≤ 250 lines), and
 * every shell command they show either runs here, as typed, against a real Temporal dev server,
 * worker and simulator that the README's own tour commands start, or is marked with what it needs
 * (`<!-- needs: … -->` before its block). A command that is neither fails the first test by name.
 *
 * What the runner changes, and why: `npx agentd` runs this checkout's bin/agentd from a PATH entry
 * (the test works in a temp folder, where npx would not find the package); long-running commands
 * (`agentd dev`, `worker`, `console`, `sim`) run in the background until their block ends (the
 * README's until the last page), and `dev`, `console` and `sim` get free ports appended so a
 * developer's own server on the default ports is never touched. A command that exits non-zero is
 * run again for up to 20 s, as a user would once a session has paused; it must end 0.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/devServer/freePort';
import { ensureTemporalCli } from '../../src/devServer/temporalCli';
import { guidePagePaths, programOf, readGuidePage, type GuidePage } from '../helpers/guideCommands';
import { repoRoot } from '../../harness/repo';

const README_MAX_LINES = 250;
/** What the runner provides on PATH; any other program needs a marker. */
const RUNNABLE_PROGRAMS = new Set(['agentd', 'temporal']);
const SERVICE = /^(?:[A-Za-z_][A-Za-z0-9_]*=\S+\s+)*(?:npx\s+)?agentd\s+(dev|worker|console|sim)\b/;
const READY: Record<string, RegExp> = {
  dev: /Temporal dev server running/,
  worker: /optional parts:/,
  console: /agentd console on (http\S+)/,
  sim: /simulator listening on/,
};
const RETRY_FOR_MS = 20_000;
const COMMAND_TIMEOUT_MS = 60_000;

interface Ran {
  readonly command: string;
  readonly code: number | null;
  readonly stdout: string;
  /** stdout and stderr as they came. */
  readonly output: string;
}

interface Service {
  readonly command: string;
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

const pages: GuidePage[] = guidePagePaths().map(readGuidePage);

describe('README and docs/guide', () => {
  it(`keep the README at most ${README_MAX_LINES} lines, link every guide page, and run or mark every shell command`, () => {
    const readme = pages.find((page) => page.page === 'README.md');
    assert.ok(readme && readme.lines <= README_MAX_LINES, `README.md has ${readme?.lines} lines`);
    const index = pages.find((page) => page.page === join('docs', 'guide', 'README.md'));
    assert.ok(index, 'docs/guide/README.md');
    const indexText = readGuidePageText(index.page);
    const unlinked = pages.filter((page) => page.page.startsWith(join('docs', 'guide')) && page !== index).filter((page) => !indexText.includes(`(${page.page.slice('docs/guide/'.length)})`));
    assert.deepEqual(unlinked.map((page) => page.page), [], 'guide pages the index does not link');

    const blocks = pages.flatMap((page) => page.blocks);
    const marked = blocks.filter((block) => block.needs !== undefined);
    assert.deepEqual(marked.filter((block) => !/\S.*\S/.test(block.needs ?? '')).map((block) => `${block.page}:${block.line}`), [], 'markers must say what is needed and why');
    const neither = blocks
      .filter((block) => block.needs === undefined)
      .flatMap((block) => block.commands.map((command) => ({ where: `${block.page}:${block.line}`, command })))
      .filter(({ command }) => !RUNNABLE_PROGRAMS.has(programOf(command)) || /[<>]\w|…/.test(command));
    assert.deepEqual(neither.map(({ where, command }) => `${where}: ${command}`), [], 'commands neither run by this test nor marked with what they need');
    const run = blocks.filter((block) => block.needs === undefined).flatMap((block) => block.commands);
    const skipped = marked.flatMap((block) => block.commands);
    console.log(`guide: ${run.length} commands run, ${skipped.length} marked (${marked.length} blocks): ${[...new Set(marked.map((block) => block.needs?.split(' — ')[0]))].join('; ')}`);
    assert.ok(run.length >= 20, `${run.length} commands run`);
  });

  describe('every unmarked command, run as typed', () => {
    let work: string;
    let env: NodeJS.ProcessEnv;
    let longLived: Service[] = [];
    before(async () => {
      work = await mkdtemp(join(tmpdir(), 'agentd-guide-'));
      const bin = join(work, '.bin');
      await mkdir(bin);
      await symlink(join(repoRoot(), 'bin', 'agentd'), join(bin, 'agentd'));
      await symlink(await ensureTemporalCli({ onProgress: () => undefined }), join(bin, 'temporal'));
      // A tools module the guide shows requires zod, and its MCP config names a server under node_modules.
      await symlink(join(repoRoot(), 'node_modules'), join(work, 'node_modules'));
      const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(OPENAI_|AGENTD_|TEMPORAL_)/.test(name)));
      env = {
        ...inherited,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        AGENTD_HOME: join(work, '.agentd'),
        TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
      };
    });
    after(async () => {
      for (const service of longLived.reverse()) await stopService(service);
      await rm(work, { recursive: true, force: true });
    });

    for (const page of pages) {
      const runnable = page.blocks.filter((block) => block.needs === undefined);
      if (runnable.length === 0) continue;
      it(`${page.page}: ${runnable.reduce((sum, block) => sum + block.commands.length, 0)} commands`, async () => {
        for (const file of page.files) await writeFile(join(work, file.name), file.text);
        for (const block of runnable) {
          const started: Service[] = [];
          try {
            for (const command of block.commands) {
              const kind = SERVICE.exec(command)?.[1];
              if (kind) {
                const service = await startService(command, kind, work, env);
                (page.page === 'README.md' ? longLived : started).push(service);
                if (kind === 'console') await assertConsoleAnswers(service);
                continue;
              }
              const ran = await runUntilOk(command, work, env);
              assert.equal(ran.code, 0, `${page.page}:${block.line}: ${command}\n${ran.output}`);
            }
          } finally {
            for (const service of started.reverse()) {
              const code = await stopService(service);
              assert.equal(code, 0, `${service.command} stopped with ${code}\n${service.output()}`);
            }
          }
        }
        await assertSessionsEnded(page, work, env);
      });
    }
  });
});

function readGuidePageText(page: string): string {
  return readFileSync(join(repoRoot(), page), 'utf8');
}

function shell(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('sh', ['-c', command.replace(/\bnpx agentd\b/g, 'agentd')], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
}

async function runOnce(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = shell(command, cwd, env);
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), COMMAND_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
  clearTimeout(timer);
  return { command, code, stdout, output };
}

async function runUntilOk(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (;;) {
    const ran = await runOnce(command, cwd, env);
    if (ran.code === 0 || Date.now() > deadline) return ran;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function startService(command: string, kind: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Service> {
  const port = env.TEMPORAL_ADDRESS?.split(':')[1] ?? '';
  const extra = { dev: ` --port ${port} --ui-port 0 --db-file ${join(cwd, 'temporal.db')}`, console: ' --port 0', sim: ' --port 0', worker: '' }[kind] ?? '';
  // `exec` after any NAME=value assignments, so the signal that stops the service reaches agentd itself.
  const child = shell(`${command.replace(/^((?:[A-Za-z_][A-Za-z0-9_]*=\S+\s+)*)/, '$1exec ')}${extra}`, cwd, env);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (READY[kind]?.test(output)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`${command} exited with ${code} before it was ready:\n${output}`)));
    setTimeout(() => reject(new Error(`${command} was not ready in 60 s:\n${output}`)), 60_000).unref();
  });
  await ready;
  // A worker installs its drain on SIGINT a moment after its start-up lines; a signal before that
  // ends it the default way, which is not what the guide's Ctrl-C shows.
  if (kind === 'worker') await new Promise((resolve) => setTimeout(resolve, 1_500));
  return { command, child, output: () => output, exited };
}

async function stopService(service: Service): Promise<number | null> {
  if (service.child.exitCode === null && service.child.pid) process.kill(service.child.pid, 'SIGINT');
  return service.exited;
}

async function assertConsoleAnswers(service: Service): Promise<void> {
  const url = READY.console?.exec(service.output())?.[1];
  assert.ok(url, service.output());
  const page = await fetch(url);
  assert.equal(page.status, 200, url);
  const sessions = await fetch(new URL('/api/sessions', url));
  assert.equal(sessions.status, 200);
  assert.match(await sessions.text(), /tour-1/, 'the console lists the tour session');
}

/** Every session a page started with `--id` exists and has ended (completed or cancelled), as the page promised. */
async function assertSessionsEnded(page: GuidePage, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const ids = page.blocks
    .filter((block) => block.needs === undefined)
    .flatMap((block) => block.commands)
    .flatMap((command) => [/\s--id\s+(\S+)/.exec(command)?.[1], /--workflow-id\s+(\S+)\s.*workflow start|workflow start .*--workflow-id\s+(\S+)/.exec(command)?.slice(1).find(Boolean)])
    .filter((id): id is string => id !== undefined);
  for (const id of new Set(ids)) {
    const deadline = Date.now() + 30_000;
    let status = '';
    while (Date.now() < deadline) {
      const ran = await runOnce(`agentd status ${id} --json`, cwd, env);
      status = ran.code === 0 ? (JSON.parse(ran.stdout) as { status: string }).status : ran.output;
      if (status === 'completed' || status === 'cancelled') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.match(status, /^(completed|cancelled)$/, `${page.page}: session ${id} ended`);
  }
}
