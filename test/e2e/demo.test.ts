/**
 * `agentd demo` as a newcomer runs it: its own dev server on a free port, its own home, the built-in
 * simulator. It must show what agentd is for — compactions, what they and the session cost — and run
 * clean, with bubblewrap and without it.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/devServer/freePort';
import { findOnPath } from '../../src/devServer/findExecutable';
import { ensureTemporalCli } from '../../src/devServer/temporalCli';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { entryPoint, finished, spawnNode, type Finished } from '../../harness/processes';

describe('agentd demo', () => {
  let dir: string;
  let temporalCli: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-demo-'));
    temporalCli = await ensureTemporalCli({ onProgress: () => undefined });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function demo(name: string, env: NodeJS.ProcessEnv = {}): Promise<Finished & { home: string }> {
    const home = join(dir, name);
    const port = await freePort();
    const run = await finished(
      spawnNode(entryPoint('cli/main'), ['demo'], { AGENTD_HOME: home, TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_CLI: temporalCli, ...env }),
    );
    return { ...run, home };
  }

  /** The session's stored tool results that were errors, straight from the demo's SQLite store. */
  async function toolErrors(home: string, stderr: string): Promise<string[]> {
    const sessionId = /started session (\S+)/.exec(stderr)?.[1];
    assert.ok(sessionId, stderr);
    const store = new SqliteTranscriptStore(join(home, 'transcripts.db'));
    try {
      const rows = await store.list(sessionId);
      assert.ok(rows.length > 40, `${rows.length} rows stored`);
      return rows.filter((row) => row.message.role === 'tool' && row.meta.isError === true).map((row) => row.message.content ?? '');
    } finally {
      await store.close();
    }
  }

  function assertShowsThePoint(run: Finished): void {
    assert.equal(run.code, 0, run.stderr);
    const compacted = run.stderr.split('\n').filter((line) => /context compacted: [\d.]+k → [\d.]+k \((summary|prune)/.test(line));
    assert.ok(compacted.length >= 2, `compaction notices printed: ${compacted.length}\n${run.stderr}`);
    assert.doesNotMatch(run.stderr, /\(error: /, 'no tool call printed as an error');
    const count = /compactions: (\d+) \(\d+ summary/.exec(run.stdout);
    assert.ok(count && Number(count[1]) >= 2, run.stdout);
    assert.match(run.stdout, /spend: .*\d+% cache hits; \$\d/);
    assert.match(run.stderr, /Where to look next:\n {2}npx agentd transcript /);
  }

  it('compacts at least twice and ends with the compactions, the spend and where to look next', async () => {
    const run = await demo('with-path');
    assertShowsThePoint(run);
    assert.deepEqual(await toolErrors(run.home, run.stderr), []);
  });

  it('without bubblewrap says run_command is off and scripts no command, so no tool fails', async () => {
    // A PATH with node and the shell tools the dev server needs, and no bwrap.
    const bin = join(dir, 'bin-without-bwrap');
    await mkdir(bin);
    for (const tool of ['node', 'sh', 'setpriv']) {
      const found = findOnPath(tool);
      if (found) await symlink(found, join(bin, tool));
    }
    const run = await demo('without-bwrap', { PATH: bin });
    assert.match(run.stderr, /run_command is off in this demo: bubblewrap is missing \(apt-get install bubblewrap/);
    assertShowsThePoint(run);
    assert.deepEqual(await toolErrors(run.home, run.stderr), []);
  });
});
