/**
 * One schema for both transcript stores (src/store/schema.ts). A new SQLite file and a new PostgreSQL
 * database each hold exactly the tables, columns, keys, indexes and search the schema declares, so
 * the two stores cannot drift apart; databases made by the DDL agentd shipped before the schema
 * module (frozen below, as it was) open and work; and a column added to the schema once appears in both.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrate, migrationsOf, MIGRATIONS, type Migration } from '../../src/store/postgresMigrations';
import { PostgresTranscriptStore } from '../../src/store/postgresStore';
import { TRANSCRIPT_SCHEMA, type Schema } from '../../src/store/schema';
import { applySqliteSchema } from '../../src/store/sqliteSchema';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import type { TranscriptStore } from '../../src/store/transcriptStore';
import { expectedSchema, livePostgresSchema, liveSqliteSchema, postgresDefinitions } from '../helpers/liveSchema';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../harness/postgres';

/** The SQLite DDL of src/store/sqliteStore.ts before the schema module. Frozen: never edit. */
const SHIPPED_SQLITE_TABLES = `
CREATE TABLE IF NOT EXISTS messages (
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  role       TEXT NOT NULL,
  body       TEXT NOT NULL,
  tokens     INTEGER NOT NULL,
  chars      INTEGER NOT NULL,
  meta       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tool_starts (
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_runs (
  session_id   TEXT PRIMARY KEY,
  first_run_id TEXT NOT NULL,
  claimed_at   TEXT NOT NULL
) WITHOUT ROWID;
`;
const SHIPPED_SQLITE_SEARCH = `
CREATE VIRTUAL TABLE messages_fts USING fts5(text, session_id UNINDEXED, seq UNINDEXED, role UNINDEXED, tokenize = 'unicode61');
`;

/** The migrations of src/store/postgresMigrations.ts before the schema module, as applied to databases in use. Frozen: never edit. */
const SHIPPED_POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'messages and tool starts',
    sql: `
      CREATE TABLE messages (
        session_id TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        role       TEXT NOT NULL,
        body       TEXT NOT NULL,
        tokens     INTEGER NOT NULL,
        chars      INTEGER NOT NULL,
        meta       TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE tool_starts (
        session_id TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        started_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (session_id, seq)
      );`,
  },
  {
    version: 2,
    name: 'full-text search of originals',
    sql: `
      ALTER TABLE messages ADD COLUMN search_text TEXT;
      UPDATE messages SET search_text = concat_ws(E'\\n',
          replace(body, '\\u0000', ' ')::json->>'content',
          (replace(body, '\\u0000', ' ')::json->'tool_calls')::text)
        WHERE meta::json->>'kind' IS NULL;
      CREATE INDEX messages_search ON messages
        USING GIN (to_tsvector('simple', regexp_replace(coalesce(search_text, ''), '[^[:alnum:]]+', ' ', 'g')));`,
  },
  {
    version: 3,
    name: 'session runs',
    sql: `
      CREATE TABLE session_runs (
        session_id   TEXT PRIMARY KEY,
        first_run_id TEXT NOT NULL,
        claimed_at   TIMESTAMPTZ NOT NULL
      );`,
  },
];

/** The schema with a version 4 that adds a nullable column and an index, as a future change would. */
const WITH_A_NOTE: Schema = {
  ...TRANSCRIPT_SCHEMA,
  versions: [...TRANSCRIPT_SCHEMA.versions, { version: 4, name: 'notes' }],
  tables: TRANSCRIPT_SCHEMA.tables.map((table) =>
    table.name === 'messages'
      ? {
          ...table,
          columns: [...table.columns, { name: 'note', type: 'text', notNull: false, since: 4 }],
          indexes: [{ name: 'messages_by_role', columns: ['session_id', 'role'], since: 4 }],
        }
      : table,
  ),
};

const postgresServer = testPostgresUrl('the store schema suite');
const needsPostgres = { skip: postgresServer ? false : 'AGENTD_TEST_POSTGRES_URL is not set' };

/** Writes and reads through every table: a message (and its search entry), a started marker, a claim. */
async function exercise(store: TranscriptStore, sessionId: string): Promise<void> {
  await store.put(sessionId, 10, { role: 'user', content: 'written by the new code: ospreyword' });
  assert.equal((await store.get(sessionId, 10))?.message.content, 'written by the new code: ospreyword');
  assert.deepEqual((await store.search(sessionId, 'ospreyword')).map((hit) => hit.seq), [10]);
  assert.equal(await store.markStarted(sessionId, 10), true);
  assert.equal(await store.markStarted(sessionId, 10), false);
  assert.deepEqual(await store.claimSession(`${sessionId}-claim`, 'run-1', { replace: false }), { kind: 'claimed' });
  assert.equal((await store.claimSession(`${sessionId}-claim`, 'run-2', { replace: false })).kind, 'taken');
}

describe('the transcript schema', () => {
  it('keeps its rules: versions 1…n, keys added with their table, later columns nullable, names that exist', () => {
    const schema = TRANSCRIPT_SCHEMA;
    const versions = schema.versions.map((entry) => entry.version);
    assert.deepEqual(versions, versions.map((_, index) => index + 1));
    const problems: string[] = [];
    for (const table of schema.tables) {
      const names = table.columns.map((column) => column.name);
      if (!versions.includes(table.since)) problems.push(`${table.name}: since ${table.since} is no version`);
      for (const column of table.columns) {
        if (!versions.includes(column.since) || column.since < table.since) problems.push(`${table.name}.${column.name}: since ${column.since}`);
        if (column.since > table.since && column.notNull) problems.push(`${table.name}.${column.name}: added later, so nullable`);
      }
      for (const key of table.primaryKey) {
        if (table.columns.find((column) => column.name === key)?.since !== table.since) problems.push(`${table.name}: key ${key}`);
      }
      for (const index of table.indexes) {
        if (!index.columns.every((name) => names.includes(name))) problems.push(`${table.name}: index ${index.name}`);
      }
    }
    const searched = schema.tables.find((table) => table.name === schema.search.table);
    if (!searched || !schema.search.carries.every((name) => searched.columns.some((column) => column.name === name))) {
      problems.push('search: table or carried columns');
    }
    assert.deepEqual(problems, []);
  });

  it('renders the PostgreSQL migrations shipped before, statement for statement', () => {
    const squeeze = (sql: string) => sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();
    assert.deepEqual(
      MIGRATIONS.map(({ version, name }) => ({ version, name })),
      SHIPPED_POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })),
      'a database records versions by number and name',
    );
    // Version 3 differs in spelling only (a table constraint for an inline PRIMARY KEY); the live comparison below covers it.
    for (const version of [1, 2]) {
      assert.equal(squeeze(MIGRATIONS[version - 1]!.sql), squeeze(SHIPPED_POSTGRES_MIGRATIONS[version - 1]!.sql), `version ${version}`);
    }
  });
});

describe('both stores hold the schema, and nothing else', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-schema-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a new SQLite file', async () => {
    const file = join(dir, 'new.db');
    await new SqliteTranscriptStore(file).close();
    const db = new Database(file, { readonly: true });
    try {
      assert.deepEqual(liveSqliteSchema(db), expectedSchema(TRANSCRIPT_SCHEMA, 'sqlite'));
    } finally {
      db.close();
    }
  });

  it('a new PostgreSQL database, with the same tables, columns, nullability and keys as the SQLite file', needsPostgres, async () => {
    const database = await createTestDatabase(postgresServer!, 'schema');
    const file = join(dir, 'twin.db');
    try {
      await (await PostgresTranscriptStore.open({ url: database.url })).close();
      const pool = new pg.Pool({ connectionString: database.url });
      const live = await livePostgresSchema(pool).finally(() => pool.end());
      assert.deepEqual(live, expectedSchema(TRANSCRIPT_SCHEMA, 'postgres'));

      await new SqliteTranscriptStore(file).close();
      const db = new Database(file, { readonly: true });
      const sqlite = liveSqliteSchema(db);
      db.close();
      // Apart from the dialects' type names and where each keeps the search, the two agree.
      const shape = (tables: typeof live.tables) =>
        Object.entries(tables).map(([name, table]) => ({
          name,
          columns: table.columns.filter((column) => column.name !== 'search_text').map((column) => `${column.name} ${column.notNull}`),
          primaryKey: table.primaryKey,
          indexes: table.indexes,
        }));
      assert.deepEqual(shape(live.tables), shape(sqlite.tables));
    } finally {
      await database.drop();
    }
  });
});

describe('a SQLite file made by the DDL shipped before opens and works', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-schema-old-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A file as the shipped code left it, with one message written as the shipped code wrote it. */
  function shippedFile(name: string, ddl: string, indexed: boolean): string {
    const file = join(dir, name);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec(ddl);
    const body = JSON.stringify({ role: 'user', content: 'an old kingfisherword' });
    db.prepare("INSERT INTO messages VALUES ('old', 0, 'user', ?, 5, 21, '{}', '2024-01-01T00:00:00.000Z')").run(body);
    if (indexed) db.prepare("INSERT INTO messages_fts (text, session_id, seq, role) VALUES ('an old kingfisherword', 'old', 0, 'user')").run();
    db.close();
    return file;
  }

  for (const [name, ddl, indexed] of [
    ['with search', SHIPPED_SQLITE_TABLES + SHIPPED_SQLITE_SEARCH, true],
    ['from before search and session runs', SHIPPED_SQLITE_TABLES.slice(0, SHIPPED_SQLITE_TABLES.indexOf('CREATE TABLE IF NOT EXISTS session_runs')), false],
  ] as const) {
    it(name, async () => {
      const file = shippedFile(`${name.replace(/\W+/g, '-')}.db`, ddl, indexed);
      const store = new SqliteTranscriptStore(file);
      try {
        assert.equal((await store.get('old', 0))?.message.content, 'an old kingfisherword');
        assert.deepEqual((await store.search('old', 'kingfisherword')).map((hit) => hit.seq), [0], 'found once, indexed once');
        await exercise(store, 'old');
      } finally {
        await store.close();
      }
      const db = new Database(file, { readonly: true });
      try {
        assert.deepEqual(liveSqliteSchema(db), expectedSchema(TRANSCRIPT_SCHEMA, 'sqlite'));
      } finally {
        db.close();
      }
    });
  }
});

describe('a PostgreSQL database migrated by the migrations shipped before opens and works', needsPostgres, () => {
  let fresh: TestDatabase;
  let freshDefinitions: string[];
  before(async () => {
    fresh = await createTestDatabase(postgresServer!, 'fresh');
    await (await PostgresTranscriptStore.open({ url: fresh.url })).close();
    const pool = new pg.Pool({ connectionString: fresh.url });
    freshDefinitions = await postgresDefinitions(pool).finally(() => pool.end());
  });
  after(async () => {
    await fresh?.drop();
  });

  for (const shipped of [3, 1]) {
    it(`with versions 1…${shipped} applied: the new code applies ${shipped === 3 ? 'nothing' : `${shipped + 1}…3`}, and leaves what a new database has`, async () => {
      const database = await createTestDatabase(postgresServer!, `shipped${shipped}`);
      const pool = new pg.Pool({ connectionString: database.url });
      try {
        await migrate(pool, SHIPPED_POSTGRES_MIGRATIONS.slice(0, shipped));
        await pool.query(
          "INSERT INTO messages (session_id, seq, role, body, tokens, chars, meta, created_at) VALUES ('old', 0, 'user', $1, 5, 21, '{}', now())",
          [JSON.stringify({ role: 'user', content: 'an old kingfisherword' })],
        );
        if (shipped >= 2) await pool.query("UPDATE messages SET search_text = 'an old kingfisherword'");
        assert.deepEqual(await migrate(pool), MIGRATIONS.map((m) => m.version).filter((version) => version > shipped));

        const store = await PostgresTranscriptStore.open({ url: database.url });
        try {
          assert.deepEqual((await store.search('old', 'kingfisherword')).map((hit) => hit.seq), [0]);
          await exercise(store, 'old');
        } finally {
          await store.close();
        }
        assert.deepEqual(await postgresDefinitions(pool), freshDefinitions);
      } finally {
        await pool.end();
        await database.drop();
      }
    });
  }
});

describe('a column and an index added to the schema once appear in both stores', () => {
  it('SQLite: added to a file of the current schema, and in a new file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentd-schema-next-'));
    try {
      const current = join(dir, 'current.db');
      const store = new SqliteTranscriptStore(current);
      await store.put('s', 0, { role: 'user', content: 'kept' });
      await store.close();
      for (const file of [current, join(dir, 'new.db')]) {
        const db = new Database(file);
        try {
          applySqliteSchema(db, () => undefined, WITH_A_NOTE);
          assert.deepEqual(liveSqliteSchema(db), expectedSchema(WITH_A_NOTE, 'sqlite'), file);
        } finally {
          db.close();
        }
      }
      const db = new Database(current, { readonly: true });
      assert.deepEqual(db.prepare('SELECT seq, note FROM messages').all(), [{ seq: 0, note: null }]);
      db.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: as migration 4 of a database of the current schema, and in a new database', needsPostgres, async () => {
    for (const label of ['current', 'new']) {
      const database = await createTestDatabase(postgresServer!, `next_${label}`);
      const pool = new pg.Pool({ connectionString: database.url });
      try {
        if (label === 'current') assert.deepEqual(await migrate(pool), [1, 2, 3]);
        assert.deepEqual(await migrate(pool, migrationsOf(WITH_A_NOTE)), label === 'current' ? [4] : [1, 2, 3, 4]);
        assert.deepEqual(await livePostgresSchema(pool), expectedSchema(WITH_A_NOTE, 'postgres'), label);
      } finally {
        await pool.end();
        await database.drop();
      }
    }
  });
});
