/**
 * The transcript schema as a live database holds it, read back from SQLite (pragmas) and PostgreSQL
 * (catalogs), and the same shape as `src/store/schema.ts` says each should be, so a test can compare
 * the two. The type names are written out here, not taken from the stores' renderers, so a renderer
 * that drifts from the schema is caught too.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import type { ColumnType, Schema } from '../../src/store/schema';

export interface LiveColumn {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
}

export interface LiveIndex {
  readonly name: string;
  readonly columns: readonly string[];
}

export interface LiveTable {
  /** Sorted by name: a column added later sits at the end in PostgreSQL, in its place in a new SQLite file. */
  readonly columns: readonly LiveColumn[];
  readonly primaryKey: readonly string[];
  /** Secondary indexes, sorted by name; the search's own index is in `search`. */
  readonly indexes: readonly LiveIndex[];
}

export interface LiveSchema {
  readonly tables: Readonly<Record<string, LiveTable>>;
  /** SQLite: the FTS5 table's columns. PostgreSQL: the searched table's text column and GIN index. */
  readonly search: Readonly<Record<string, unknown>>;
}

const SQLITE_TYPES: Readonly<Record<ColumnType, string>> = { text: 'TEXT', integer: 'INTEGER', timestamp: 'TEXT' };
const POSTGRES_TYPES: Readonly<Record<ColumnType, string>> = { text: 'text', integer: 'integer', timestamp: 'timestamp with time zone' };

const byName = <T extends { name: string }>(items: readonly T[]): T[] => [...items].sort((a, b) => a.name.localeCompare(b.name));

/** What `schema` says a database of `dialect` holds. */
export function expectedSchema(schema: Schema, dialect: 'sqlite' | 'postgres'): LiveSchema {
  const types = dialect === 'sqlite' ? SQLITE_TYPES : POSTGRES_TYPES;
  const { search } = schema;
  const tables: Record<string, LiveTable> = {};
  for (const table of schema.tables) {
    const columns = table.columns.map((column) => ({ name: column.name, type: types[column.type], notNull: column.notNull }));
    if (dialect === 'postgres' && table.name === search.table) columns.push({ name: 'search_text', type: 'text', notNull: false });
    tables[table.name] = {
      columns: byName(columns),
      primaryKey: table.primaryKey,
      indexes: byName(table.indexes.map((index) => ({ name: index.name, columns: index.columns }))),
    };
  }
  const searchShape =
    dialect === 'sqlite'
      ? { [`${search.table}_fts`]: ['text', ...search.carries] }
      : { [`${search.table}_search`]: `gin over to_tsvector('simple', … search_text …)` };
  return { tables, search: searchShape };
}

/** The user tables of a SQLite file; FTS5's shadow tables belong to its virtual table. */
export function liveSqliteSchema(db: Database.Database): LiveSchema {
  const names = db
    .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all();
  const fts = names.filter((table) => /USING fts5/i.test(table.sql)).map((table) => table.name);
  const isShadow = (name: string) => fts.some((virtual) => name.startsWith(`${virtual}_`));
  const tables: Record<string, LiveTable> = {};
  const search: Record<string, unknown> = {};
  for (const { name } of names) {
    if (isShadow(name)) continue;
    const columns = db
      .prepare<[string], { name: string; type: string; notnull: number; pk: number }>('SELECT name, type, "notnull", pk FROM pragma_table_info(?)')
      .all(name);
    if (fts.includes(name)) {
      search[name] = columns.map((column) => column.name);
      continue;
    }
    const indexes = db
      .prepare<[string], { name: string }>("SELECT name FROM pragma_index_list(?) WHERE origin = 'c'")
      .all(name)
      .map((index) => ({
        name: index.name,
        columns: db.prepare<[string], { name: string }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno').all(index.name).map((c) => c.name),
      }));
    tables[name] = {
      // A key column of a WITHOUT ROWID table is NOT NULL whether declared so or not.
      columns: byName(columns.map((column) => ({ name: column.name, type: column.type, notNull: column.notnull === 1 || column.pk > 0 }))),
      primaryKey: columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name),
      indexes: byName(indexes),
    };
  }
  return { tables, search };
}

/** The public tables of a PostgreSQL database; agentd_schema_migrations is the migrations' own ledger, not the schema. */
export async function livePostgresSchema(db: pg.Pool): Promise<LiveSchema> {
  const { rows: columns } = await db.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name <> 'agentd_schema_migrations'`,
  );
  const { rows: indexes } = await db.query<{ table: string; name: string; method: string; primary: boolean; columns: string[]; definition: string }>(
    `SELECT t.relname AS table, i.relname AS name, am.amname AS method, ix.indisprimary AS primary,
            pg_get_indexdef(i.oid) AS definition,
            array_remove(array_agg(a.attname::text ORDER BY k.ord), NULL) AS columns
     FROM pg_index ix
     JOIN pg_class i ON i.oid = ix.indexrelid
     JOIN pg_class t ON t.oid = ix.indrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
     JOIN pg_am am ON am.oid = i.relam
     CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
     LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
     WHERE t.relname <> 'agentd_schema_migrations'
     GROUP BY t.relname, i.relname, am.amname, ix.indisprimary, i.oid`,
  );
  const tables: Record<string, LiveTable> = {};
  const search: Record<string, unknown> = {};
  for (const table of [...new Set(columns.map((column) => column.table_name))].sort()) {
    const own = indexes.filter((index) => index.table === table);
    const gin = own.filter((index) => index.method === 'gin');
    for (const index of gin) {
      const overSearchText = /to_tsvector\('simple'::regconfig, .*search_text/.test(index.definition);
      search[index.name] = overSearchText ? `gin over to_tsvector('simple', … search_text …)` : index.definition;
    }
    tables[table] = {
      columns: byName(
        columns
          .filter((column) => column.table_name === table)
          .map((column) => ({ name: column.column_name, type: column.data_type, notNull: column.is_nullable === 'NO' })),
      ),
      primaryKey: own.find((index) => index.primary)?.columns ?? [],
      indexes: byName(own.filter((index) => !index.primary && index.method !== 'gin').map(({ name, columns: on }) => ({ name, columns: on }))),
    };
  }
  return { tables, search };
}

/**
 * Every definition of a PostgreSQL database's public schema as text, in column order: two databases
 * with equal lists were left in the same state by their migrations.
 */
export async function postgresDefinitions(db: pg.Pool): Promise<string[]> {
  const { rows } = await db.query<{ line: string }>(
    `SELECT format('column %s.%s #%s %s %s default %s', table_name, column_name, ordinal_position, data_type, is_nullable, column_default) AS line
       FROM information_schema.columns WHERE table_schema = 'public'
     UNION ALL
     SELECT format('constraint %s.%s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace
     UNION ALL
     SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'
     ORDER BY line`,
  );
  return rows.map((row) => row.line);
}
