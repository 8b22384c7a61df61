/**
 * The transcript store on both backends, same cases: idempotent puts under workflow-allocated seqs,
 * token counts on write, ordered reads, started markers, and a second connection that sees it all.
 * PostgreSQL also: schema migration when several processes open the store at once.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { countMessageTokens } from '../../src/model/tokens';
import { openStore } from '../../src/store/openStore';
import { MAX_INDEXED_CHARS } from '../../src/store/searchText';
import { migrate, MIGRATIONS } from '../../src/store/postgresMigrations';
import { PostgresTranscriptStore } from '../../src/store/postgresStore';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { parseStoreSetting, redactStoreUrl, type StoreSetting } from '../../src/store/storeSetting';
import { TranscriptStoreError, type TranscriptStore } from '../../src/store/transcriptStore';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../harness/postgres';

/** A backend under test: a setting to open it with, and how to throw it away afterwards. */
interface Backend {
  readonly name: string;
  prepare(): Promise<{ setting: StoreSetting; dispose(): Promise<void> }>;
}

const postgresServer = testPostgresUrl('the transcript store suite');

const BACKENDS: readonly Backend[] = [
  {
    name: 'SQLite',
    async prepare() {
      const dir = await mkdtemp(join(tmpdir(), 'agentd-store-'));
      return {
        setting: parseStoreSetting(join(dir, 'nested', 'transcripts.db'), 'unused'),
        dispose: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'PostgreSQL',
    async prepare() {
      const database = await createTestDatabase(postgresServer!, 'store');
      return { setting: parseStoreSetting(database.url, 'unused'), dispose: database.drop };
    },
  },
];

for (const backend of BACKENDS) {
  const skip = backend.name === 'PostgreSQL' && !postgresServer ? 'AGENTD_TEST_POSTGRES_URL is not set' : false;
  describe(`transcript store on ${backend.name}`, { skip }, () => {
    let setting: StoreSetting;
    let dispose: () => Promise<void>;
    let store: TranscriptStore;
    before(async () => {
      ({ setting, dispose } = await backend.prepare());
      store = await openStore(setting);
    });
    after(async () => {
      await store?.close();
      await dispose?.();
    });

    it('returns the stored row instead of rewriting it', async () => {
      const first = await store.put('s1', 0, { role: 'user', content: 'original' }, { origin: 'first' });
      const again = await store.put('s1', 0, { role: 'user', content: 'a retry with other text' }, { origin: 'retry' });
      assert.deepEqual(again, first);
      assert.equal((await store.get('s1', 0))?.message.content, 'original');
      assert.deepEqual((await store.get('s1', 0))?.meta, { origin: 'first' });
    });

    it('counts tokens when storing, tool-call arguments included', async () => {
      const args = JSON.stringify({ path: 'big.txt', content: 'lorem ipsum '.repeat(2000) });
      const message = {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'write_file', arguments: args } }],
      };
      const stored = await store.put('s1', 1, message);
      assert.equal(stored.tokens, countMessageTokens(message));
      assert.ok(stored.tokens > 2000, `an 24 KB write weighs its arguments (${stored.tokens} tokens)`);
      assert.equal(stored.chars, args.length);
      assert.deepEqual((await store.get('s1', 1))?.message, message);
    });

    it('stores a 5 MB reply whole with the event loop free, indexes its head and tail, and reads its calls alone', async () => {
      const prose = 'The build failed twice before the cache was cleared, then passed. '.repeat(40_000);
      const content = `zebrahead ${prose} quokkamiddle ${prose}narwhaltail`;
      const calls = [{ id: 'c1', type: 'function' as const, function: { name: 'list_files', arguments: '{}' } }];
      const message = { role: 'assistant' as const, content, tool_calls: calls };
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 5);
      const stored = await store.put('s1', 10, message);
      clearInterval(ticker);
      // Counted (and, in SQLite, written) on a thread of their own: in place, the put would let no tick run.
      assert.ok(ticks >= 5, `the event loop ran ${ticks} ticks while ${content.length} characters were stored`);
      assert.equal(stored.tokens, countMessageTokens(message));
      assert.equal((await store.get('s1', 10))?.message.content, content);
      assert.deepEqual(await store.toolCallsOf('s1', 10), calls);
      await store.put('s1', 11, { role: 'user', content: 'not a reply' });
      assert.equal(await store.toolCallsOf('s1', 11), undefined);
      assert.deepEqual((await store.search('s1', 'zebrahead')).map((hit) => hit.seq), [10]);
      assert.deepEqual((await store.search('s1', 'narwhaltail')).map((hit) => hit.seq), [10]);
      assert.deepEqual(await store.search('s1', 'quokkamiddle'), [], `the middle past MAX_INDEXED_CHARS (${MAX_INDEXED_CHARS}) is not indexed`);
    });

    it('keeps a tool output with NUL bytes and other control characters exactly', async () => {
      const content = 'binary\u0000output\u0001\ttab\n\u{1F600} end';
      await store.put('s1', 2, { role: 'tool', tool_call_id: 'c1', content });
      assert.equal((await store.get('s1', 2))?.message.content, content);
    });

    it('reads seqs in the order asked and names a missing one', async () => {
      await store.put('s2', 0, { role: 'system', content: 'sys' });
      await store.put('s2', 1, { role: 'user', content: 'task' });
      const rows = await store.getMany('s2', [1, 0, 1]);
      assert.deepEqual(rows.map((row) => row.seq), [1, 0, 1]);
      await assert.rejects(store.getMany('s2', [0, 7]), (error: unknown) => {
        assert.ok(error instanceof TranscriptStoreError);
        assert.equal(error.code, 'missing_seq');
        assert.match(error.message, /seq 7/);
        return true;
      });
    });

    it('keeps sessions apart and lists them in seq order, newest session first', async () => {
      // Written out of order: list must sort by seq, not by insertion.
      await store.put('s4', 2, { role: 'user', content: 'c' });
      await store.put('s4', 0, { role: 'system', content: 'a' });
      await store.put('s4', 1, { role: 'user', content: 'b' });
      assert.deepEqual((await store.list('s4')).map((row) => row.message.content), ['a', 'b', 'c']);
      assert.deepEqual((await store.list('s4', { afterSeq: 0 })).map((row) => row.seq), [1, 2]);
      assert.deepEqual((await store.list('s4', { afterSeq: 0, limit: 1 })).map((row) => row.seq), [1]);
      assert.deepEqual(await store.list('nobody'), []);
      assert.deepEqual((await store.list('s2')).map((row) => row.message.content), ['sys', 'task']);
      const sessions = await store.sessions();
      assert.deepEqual(sessions.map((session) => session.sessionId).sort(), ['s1', 's2', 's4']);
      assert.equal(sessions[0]?.sessionId, 's4', 'the session written last comes first');
      const s4 = sessions.find((session) => session.sessionId === 's4');
      assert.equal(s4?.messages, 3);
      assert.equal(typeof s4?.tokens, 'number');
      assert.ok(!Number.isNaN(Date.parse(s4?.lastAt ?? '')));
    });

    it('records a started world-changing call once, so a retry can tell it was started', async () => {
      assert.equal(await store.markStarted('s3', 4), true);
      assert.equal(await store.markStarted('s3', 4), false);
      assert.equal(await store.markStarted('s3', 5), true);
    });

    it('lets racing writers of one seq agree on a single row', async () => {
      const other = await openStore(setting);
      try {
        const writes = Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? store : other).put('race', 0, { role: 'user', content: `writer ${index}` }),
        );
        const results = await Promise.all(writes);
        const contents = new Set(results.map((row) => row.message.content));
        assert.equal(contents.size, 1, `every writer got the same stored row, not ${[...contents].join(' / ')}`);
        const starts = await Promise.all([store.markStarted('race', 1), other.markStarted('race', 1), store.markStarted('race', 1)]);
        assert.deepEqual(starts.filter(Boolean).length, 1, 'exactly one attempt recorded the start');
      } finally {
        await other.close();
      }
    });

    it('searches one session\'s originals: seqs with snippets, arguments unescaped, views and summaries left out', async () => {
      const sessionId = 'find';
      await store.put(sessionId, 0, { role: 'system', content: 'You are careful.' });
      await store.put(sessionId, 1, { role: 'user', content: 'CONSTRAINT: never edit vendor/, it is generated.' });
      const args = JSON.stringify({ path: 'src/osprey.ts', content: 'export const release = "osprey";\nconst retries = 7431;' });
      await store.put(sessionId, 2, {
        role: 'assistant',
        content: 'Writing the module.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'write_file', arguments: args } }],
      });
      await store.put(sessionId, 3, { role: 'tool', tool_call_id: 'c1', content: 'not ok 4 - tokenizer_rejects_tabs\nexit code: 1\u0000' });
      await store.put(sessionId, 4, { role: 'tool', tool_call_id: 'c1', content: 'view of tokenizer_rejects_tabs' }, { kind: 'view', replaces: 3 });
      await store.put(sessionId, 5, { role: 'user', content: '[agentd summary] vendor osprey' }, { kind: 'summary' });
      await store.put('elsewhere', 0, { role: 'user', content: 'another session also mentions osprey and vendor' });

      const constraint = await store.search(sessionId, 'vendor generated');
      assert.deepEqual(constraint.map((hit) => hit.seq), [1], 'every word must occur; the summary is not indexed');
      assert.equal(constraint[0]?.role, 'user');
      assert.match(constraint[0]?.snippet ?? '', /\[vendor\]/, 'the snippet marks the match');
      const number = await store.search(sessionId, '7431');
      assert.deepEqual(number.map((hit) => hit.seq), [2], 'a number inside write_file arguments');
      const failing = await store.search(sessionId, 'tokenizer_rejects_tabs');
      assert.deepEqual(failing.map((hit) => hit.seq), [3], 'the original, not its view');
      assert.match(failing[0]?.snippet ?? '', /tokenizer/);
      assert.deepEqual((await store.search(sessionId, 'osprey')).map((hit) => hit.seq), [2], 'never another session');
      assert.deepEqual(await store.search(sessionId, '"*:) -'), [], 'a query of punctuation finds nothing, and does not throw');
      assert.deepEqual(await store.search(sessionId, 'absent-word'), []);
      assert.deepEqual((await store.search(sessionId, 'exit: code"', { limit: 1 })).map((hit) => hit.seq), [3], 'query syntax is taken as words');
    });

    it('claims a session id for one run: its own claim again is fine, another run is refused or, asked to, archives the old rows', async () => {
      assert.deepEqual(await store.claimSession('claimed', 'run-a', { replace: false }), { kind: 'claimed' });
      await store.put('claimed', 0, { role: 'user', content: 'first owner, codename heron' });
      await store.markStarted('claimed', 0);
      assert.deepEqual(await store.claimSession('claimed', 'run-a', { replace: false }), { kind: 'claimed' }, 'a retried claim');
      assert.deepEqual(await store.claimSession('claimed', 'run-b', { replace: false }), { kind: 'taken', byRunId: 'run-a' });
      assert.equal((await store.list('claimed')).length, 1, 'a refused claim changes nothing');

      assert.deepEqual(await store.claimSession('claimed', 'run-b', { replace: true }), { kind: 'replaced', archivedAs: 'claimed@run-a' });
      assert.deepEqual(await store.list('claimed'), []);
      assert.equal((await store.get('claimed@run-a', 0))?.message.content, 'first owner, codename heron');
      assert.deepEqual(await store.search('claimed', 'heron'), [], "the new run's search finds none of the old run's words");
      assert.deepEqual((await store.search('claimed@run-a', 'heron')).map((hit) => hit.seq), [0], 'the archive keeps its index');
      assert.equal(await store.markStarted('claimed', 0), true, 'the new run starts with no started markers');
      assert.deepEqual(await store.claimSession('claimed', 'run-b', { replace: true }), { kind: 'claimed' }, 'a retried replacement');

      // Rows from before claims existed have no owner; they are another run's all the same.
      await store.put('unowned', 0, { role: 'user', content: 'legacy' });
      assert.deepEqual(await store.claimSession('unowned', 'run-c', { replace: false }), { kind: 'taken' });
    });

    it('is shared by a second connection (worker and CLI)', async () => {
      const reader = await openStore(setting);
      try {
        assert.equal((await reader.get('s2', 1))?.message.content, 'task');
      } finally {
        await reader.close();
      }
    });
  });
}

describe('PostgreSQL schema migration', { skip: postgresServer ? false : 'AGENTD_TEST_POSTGRES_URL is not set' }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase(postgresServer!, 'migrate');
  });
  after(async () => {
    await database?.drop();
  });

  it('migrates once when several processes open a fresh database at the same moment, and again is a no-op', async () => {
    const stores = await Promise.all(Array.from({ length: 6 }, () => PostgresTranscriptStore.open({ url: database.url })));
    await Promise.all(stores.map((store) => store.close()));
    const reopened = await PostgresTranscriptStore.open({ url: database.url });
    await reopened.put('m', 0, { role: 'user', content: 'after migration' });
    await reopened.close();

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>('SELECT version FROM agentd_schema_migrations ORDER BY version');
      assert.deepEqual(
        rows.map((row) => row.version),
        MIGRATIONS.map((migration) => migration.version),
        'each migration recorded exactly once',
      );
    } finally {
      await client.end();
    }
  });

  it('indexes for search the rows a database written before migration 2 already holds', async () => {
    const older = await createTestDatabase(postgresServer!, 'search');
    try {
      const pool = new pg.Pool({ connectionString: older.url });
      try {
        await migrate(pool, MIGRATIONS.filter((migration) => migration.version === 1));
        const insert = 'INSERT INTO messages (session_id, seq, role, body, tokens, chars, meta, created_at) VALUES ($1, $2, $3, $4, 1, 1, $5, now())';
        await pool.query(insert, ['old', 0, 'tool', JSON.stringify({ role: 'tool', tool_call_id: 'c', content: 'FAIL legacy_case\u0000' }), '{}']);
        const call = { id: 'c', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'notes/kestrel.md' }) } };
        await pool.query(insert, ['old', 1, 'assistant', JSON.stringify({ role: 'assistant', content: null, tool_calls: [call] }), '{}']);
        await pool.query(insert, ['old', 2, 'tool', JSON.stringify({ role: 'tool', tool_call_id: 'c', content: 'legacy_case view' }), '{"kind":"view"}']);
      } finally {
        await pool.end();
      }
      const store = await PostgresTranscriptStore.open({ url: older.url });
      try {
        assert.deepEqual((await store.search('old', 'legacy_case')).map((hit) => hit.seq), [0], 'the original, not the view');
        assert.deepEqual((await store.search('old', 'kestrel')).map((hit) => hit.seq), [1], 'tool-call arguments too');
      } finally {
        await store.close();
      }
    } finally {
      await older.drop();
    }
  });

  it('fails with a typed error, without the password, when the server cannot be reached', async () => {
    const unreachable = 'postgres://agentd:s3cret-pw@127.0.0.1:1/nowhere';
    await assert.rejects(PostgresTranscriptStore.open({ url: unreachable }), (error: unknown) => {
      assert.ok(error instanceof TranscriptStoreError);
      assert.equal(error.code, 'unavailable');
      assert.doesNotMatch(error.message, /s3cret-pw/);
      return true;
    });
  });
});

describe('SQLite file modes', () => {
  it('creates its folder 0700 and the store file (and its -wal) 0600', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentd-store-modes-'));
    try {
      const file = join(dir, 'private', 'transcripts.db');
      const store = new SqliteTranscriptStore(file);
      try {
        await store.put('m', 0, { role: 'user', content: 'only the worker reads this' });
        const mode = (path: string) => statSync(path).mode & 0o777;
        assert.equal(mode(join(dir, 'private')).toString(8), '700');
        assert.equal(mode(file).toString(8), '600');
        assert.equal(mode(`${file}-wal`).toString(8), '600', 'SQLite gives the WAL the file\'s mode');
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite write lock held by another connection', () => {
  it('waits on the event loop, not inside SQLite, and stores once the lock is let go', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentd-busy-'));
    const file = join(dir, 'transcripts.db');
    const store = new SqliteTranscriptStore(file);
    const other = new Database(file);
    try {
      // Another process (a CLI, a second worker) in the middle of a write.
      other.exec('BEGIN IMMEDIATE');
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 10);
      const released = setTimeout(() => other.exec('COMMIT'), 400);
      const started = Date.now();
      const stored = await store.put('busy-1', 0, { role: 'user', content: 'waited for the lock' });
      const waitedMs = Date.now() - started;
      clearInterval(ticker);
      clearTimeout(released);
      assert.equal(stored.message.content, 'waited for the lock');
      assert.ok(waitedMs >= 350, `the write waited for the lock (${waitedMs} ms)`);
      // SQLite's own busy handler would have held the thread: no tick, and the COMMIT timer could not run either.
      assert.ok(ticks >= 15, `the event loop ran ${ticks} 10 ms ticks during a ${waitedMs} ms wait`);
    } finally {
      other.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite search index', () => {
  it('indexes the rows of a file written before the index existed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentd-store-fts-'));
    try {
      const file = join(dir, 'old.db');
      const db = new Database(file);
      db.exec(`CREATE TABLE messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, body TEXT NOT NULL,
        tokens INTEGER NOT NULL, chars INTEGER NOT NULL, meta TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID`);
      db.prepare('INSERT INTO messages VALUES (?, ?, ?, ?, 1, 1, ?, ?)').run(
        'old', 0, 'tool', JSON.stringify({ role: 'tool', tool_call_id: 'c', content: 'FAIL legacy_case' }), '{}', new Date().toISOString(),
      );
      db.close();
      const store = new SqliteTranscriptStore(file);
      try {
        assert.deepEqual((await store.search('old', 'legacy_case')).map((hit) => hit.seq), [0]);
        await store.put('old', 1, { role: 'user', content: 'a new legacy_case line' });
        assert.deepEqual((await store.search('old', 'legacy_case')).map((hit) => hit.seq).sort(), [0, 1]);
      } finally {
        await store.close();
      }
      // Opening again neither rebuilds nor doubles the index.
      const again = new SqliteTranscriptStore(file);
      try {
        assert.equal((await again.search('old', 'legacy_case')).length, 2);
      } finally {
        await again.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('store setting', () => {
  it('chooses PostgreSQL for postgres:// and postgresql:// URLs and SQLite for anything else', () => {
    assert.deepEqual(parseStoreSetting('postgres://u@h/db', 'd.db'), { kind: 'postgres', url: 'postgres://u@h/db' });
    assert.equal(parseStoreSetting('postgresql://u@h:5432/db?sslmode=require', 'd.db').kind, 'postgres');
    assert.equal(parseStoreSetting('POSTGRES://u@h/db', 'd.db').kind, 'postgres');
    const file = parseStoreSetting('data/t.db', 'd.db');
    assert.equal(file.kind, 'sqlite');
    assert.ok(file.kind === 'sqlite' && file.file.endsWith(join('data', 't.db')) && file.file.startsWith('/'));
    assert.deepEqual(parseStoreSetting(undefined, '/x/d.db'), { kind: 'sqlite', file: '/x/d.db' });
    assert.deepEqual(parseStoreSetting('  ', '/x/d.db'), { kind: 'sqlite', file: '/x/d.db' });
  });

  it('names AGENTD_STORE and hides the password of a URL it cannot use', () => {
    assert.throws(() => parseStoreSetting('postgres://user:hunter2@', 'd.db'), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /AGENTD_STORE/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    });
  });

  it('redacts passwords in the URL and in its query parameters', () => {
    const shown = redactStoreUrl('postgres://agentd:hunter2@db.example:5432/agentd?sslmode=require&password=other-secret');
    assert.doesNotMatch(shown, /hunter2|other-secret/);
    assert.match(shown, /agentd:\*\*\*@db\.example:5432\/agentd/);
    assert.match(shown, /sslmode=require/);
    assert.equal(redactStoreUrl('postgres://agentd@db/agentd'), 'postgres://agentd@db/agentd');
  });
});
