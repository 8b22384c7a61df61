/**
 * The transcript schema (`schema.ts`) as SQLite DDL, and a file of any earlier release brought up to
 * it. SQLite files carry no version number: what a file lacks is read from the file itself.
 */
import type Database from 'better-sqlite3';
import { TRANSCRIPT_SCHEMA, type Column, type ColumnType, type Schema, type Table } from './schema';

/** SQLite's storage classes; a timestamp is ISO-8601 text, which sorts as time does. */
const TYPES: Readonly<Record<ColumnType, string>> = { text: 'TEXT', integer: 'INTEGER', timestamp: 'TEXT' };

/** The FTS5 table that holds the search of `schema`, beside the table it indexes. */
export function sqliteSearchTable(schema: Schema): string {
  return `${schema.search.table}_fts`;
}

function columnDdl(column: Column): string {
  return `${column.name} ${TYPES[column.type]}${column.notNull ? ' NOT NULL' : ''}`;
}

/** WITHOUT ROWID: rows are only ever found by their key, and are stored in its order. */
export function sqliteTableDdl(table: Table): string {
  const lines = [...table.columns.map(columnDdl), `PRIMARY KEY (${table.primaryKey.join(', ')})`];
  return `CREATE TABLE IF NOT EXISTS ${table.name} (\n  ${lines.join(',\n  ')}\n) WITHOUT ROWID;`;
}

/** unicode61: every run of non-alphanumerics a word break, no stemming (test names and identifiers are not English). */
export function sqliteSearchDdl(schema: Schema): string {
  const carried = schema.search.carries.map((name) => `${name} UNINDEXED`);
  return `CREATE VIRTUAL TABLE ${sqliteSearchTable(schema)} USING fts5(text, ${carried.join(', ')}, tokenize = 'unicode61');`;
}

/**
 * Brings the open file to `schema`: creates the tables it lacks, adds the columns and indexes that a
 * file of an earlier release lacks, and creates the search index if absent, calling `fillSearch` in
 * the same transaction to index the rows the file already holds (so older sessions are searchable).
 */
export function applySqliteSchema(db: Database.Database, fillSearch: () => void, schema: Schema = TRANSCRIPT_SCHEMA): void {
  db.exec(schema.tables.map(sqliteTableDdl).join('\n'));
  const columnsOf = db.prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)');
  const hasTable = db.prepare<[string], { present: number }>("SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = ?");
  // IMMEDIATE: a worker and a CLI opening an older file at once must not both alter it or index it.
  db.transaction(() => {
    for (const table of schema.tables) {
      const present = new Set(columnsOf.all(table.name).map((found) => found.name));
      for (const column of table.columns) {
        if (!present.has(column.name)) db.exec(`ALTER TABLE ${table.name} ADD COLUMN ${columnDdl(column)}`);
      }
      for (const index of table.indexes) {
        db.exec(`CREATE INDEX IF NOT EXISTS ${index.name} ON ${table.name} (${index.columns.join(', ')})`);
      }
    }
    if (hasTable.get(sqliteSearchTable(schema))) return;
    db.exec(sqliteSearchDdl(schema));
    fillSearch();
  }).immediate();
}
