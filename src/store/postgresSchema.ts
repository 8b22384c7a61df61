/**
 * The transcript schema (`schema.ts`) as PostgreSQL DDL: the statements of one numbered migration per
 * schema version, and the search expression that the index and the queries must share.
 */
import type { Column, ColumnType, Schema, Table } from './schema';

const TYPES: Readonly<Record<ColumnType, string>> = { text: 'TEXT', integer: 'INTEGER', timestamp: 'TIMESTAMPTZ' };

/** The column of the searched table that holds what the search indexes (NULL for a row not indexed). */
export const SEARCH_TEXT_COLUMN = 'search_text';

/**
 * Words of a text as the search index splits them: every run of non-alphanumerics a word break, as
 * SQLite's unicode61 tokenizer does (the default parser would keep src/a.ts or a_b as one word).
 */
export function words(sql: string): string {
  return `regexp_replace(coalesce(${sql}, ''), '[^[:alnum:]]+', ' ', 'g')`;
}

/**
 * The indexed expression; a query must use it as written, or the index is not used. 'simple': no
 * stemming and no stop words (test names and identifiers are not English).
 */
export const SEARCH_VECTOR = `to_tsvector('simple', ${words(SEARCH_TEXT_COLUMN)})`;

function columnDdl(column: Column): string {
  return `${column.name} ${TYPES[column.type]}${column.notNull ? ' NOT NULL' : ''}`;
}

/**
 * The statements that bring a database of version − 1 to `version`: the tables, columns, indexes and
 * search added by it, with `backfill` (data the new columns need from rows written before) run
 * before the indexes are built.
 */
export function postgresVersionDdl(schema: Schema, version: number, backfill?: string): string {
  const { search } = schema;
  const searchHere = search.since === version;
  const statements: string[] = [];
  for (const table of schema.tables.filter((candidate) => candidate.since === version)) {
    statements.push(createTable(table, searchHere && search.table === table.name));
  }
  for (const table of schema.tables.filter((candidate) => candidate.since < version)) {
    for (const column of table.columns.filter((candidate) => candidate.since === version)) {
      statements.push(`ALTER TABLE ${table.name} ADD COLUMN ${columnDdl(column)}`);
    }
    if (searchHere && search.table === table.name) statements.push(`ALTER TABLE ${table.name} ADD COLUMN ${SEARCH_TEXT_COLUMN} TEXT`);
  }
  if (backfill !== undefined) statements.push(backfill);
  for (const table of schema.tables) {
    for (const index of table.indexes.filter((candidate) => candidate.since === version)) {
      statements.push(`CREATE INDEX ${index.name} ON ${table.name} (${index.columns.join(', ')})`);
    }
  }
  if (searchHere) statements.push(`CREATE INDEX ${search.table}_search ON ${search.table} USING GIN (${SEARCH_VECTOR})`);
  return statements.map((statement) => `${statement};`).join('\n');
}

function createTable(table: Table, withSearch: boolean): string {
  const lines = [
    ...table.columns.filter((column) => column.since === table.since).map(columnDdl),
    ...(withSearch ? [`${SEARCH_TEXT_COLUMN} TEXT`] : []),
    `PRIMARY KEY (${table.primaryKey.join(', ')})`,
  ];
  return `CREATE TABLE ${table.name} (\n  ${lines.join(',\n  ')}\n)`;
}
