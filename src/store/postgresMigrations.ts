/**
 * The PostgreSQL store's schema (`schema.ts`) as numbered migrations, one per schema version, applied
 * on start under an advisory lock so that several workers starting at once migrate it exactly once.
 */
import type { Pool } from 'pg';
import { postgresVersionDdl, SEARCH_TEXT_COLUMN } from './postgresSchema';
import { TRANSCRIPT_SCHEMA, type Schema } from './schema';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * Data a version's new columns need from the rows written before it, run after the version's
 * columns are added and before its indexes are built. Version 2's reads the search text of rows
 * written before the search existed, as `searchTextOf` would give it; the JSON text's \u0000 escapes
 * are taken out first, as json ->> refuses them.
 */
const BACKFILLS: ReadonlyMap<number, string> = new Map([
  [
    2,
    `UPDATE messages SET ${SEARCH_TEXT_COLUMN} = concat_ws(E'\\n',
        replace(body, '\\u0000', ' ')::json->>'content',
        (replace(body, '\\u0000', ' ')::json->'tool_calls')::text)
      WHERE meta::json->>'kind' IS NULL`,
  ],
]);

/** One migration per version of `schema`, its DDL rendered from the schema (`postgresSchema.ts`). */
export function migrationsOf(schema: Schema, backfills: ReadonlyMap<number, string> = BACKFILLS): Migration[] {
  return schema.versions.map(({ version, name }) => ({ version, name, sql: postgresVersionDdl(schema, version, backfills.get(version)) }));
}

/**
 * Append only, as the schema's versions are. A database records only the numbers of the versions
 * applied, so a shipped version's statements must go on rendering what they did when first applied,
 * or databases migrated before and after the change would differ (test/e2e/storeSchema.test.ts holds
 * them to the shipped migrations, kept there frozen).
 */
export const MIGRATIONS: readonly Migration[] = migrationsOf(TRANSCRIPT_SCHEMA);

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
