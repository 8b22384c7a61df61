/**
 * The PostgreSQL store's schema as numbered migrations, applied on start under an advisory lock so
 * that several workers starting at once migrate it exactly once.
 */
import type { Pool } from 'pg';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * Append only: a shipped migration is never edited. Workers of an older release keep running
 * against a newer schema, so a migration must not remove or rename what older code reads.
 * Bodies are JSON text, not jsonb: jsonb rejects the \u0000 escape a tool's output may contain,
 * and text keeps the stored bytes exactly as written.
 */
export const MIGRATIONS: readonly Migration[] = [
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
    // 'simple': no stemming and no stop words, and every run of non-alphanumerics a word break, as
    // SQLite's unicode61 tokenizer does (test names and identifiers are not English, and the default
    // parser would keep src/a.ts or a_b as one word). The backfill reads rows written before this
    // migration; the JSON text's \u0000 escapes are taken out first, as json ->> refuses them.
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

/** Any fixed 64-bit number; it only has to be the same in every agentd process. */
const MIGRATION_LOCK_KEY = 0x61_67_65_6e_74_64n; // "agentd"

/** Applies the migrations the database lacks, in one transaction; returns the versions applied. */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Transaction-scoped: released by COMMIT or ROLLBACK, even when this process dies mid-way.
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS agentd_schema_migrations (
        version    INTEGER PRIMARY KEY,
        name       TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM agentd_schema_migrations');
    const present = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (present.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO agentd_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
