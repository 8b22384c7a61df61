/**
 * The transcript store's schema, declared once. Both stores render their DDL from it
 * (`sqliteSchema.ts`, `postgresSchema.ts`), so a column added here appears in both; and
 * test/e2e/storeSchema.test.ts reads both live databases back against it, so they cannot drift apart.
 *
 * `since` is the schema version that added a table, column, index or the search: PostgreSQL applies
 * one numbered migration per version, SQLite adds to a file whatever it lacks. Append only, as a
 * shipped migration is never edited: workers of an older release keep running against a newer
 * schema, so nothing older code reads is removed or renamed, and a column added to an existing
 * table is nullable (both dialects' ADD COLUMN need that for a table that has rows).
 */

/**
 * How a column's values are stored. `timestamp` is ISO-8601 text in SQLite and TIMESTAMPTZ in
 * PostgreSQL. JSON bodies are `text`, not jsonb: jsonb rejects the \u0000 escape a tool's output may
 * contain, and text keeps the stored bytes exactly as written.
 */
export type ColumnType = 'text' | 'integer' | 'timestamp';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
  readonly notNull: boolean;
  readonly since: number;
}

export interface Index {
  readonly name: string;
  readonly columns: readonly string[];
  readonly since: number;
}

export interface Table {
  readonly name: string;
  readonly since: number;
  readonly columns: readonly Column[];
  /** Columns added with the table: a key cannot change once rows are stored under it. */
  readonly primaryKey: readonly string[];
  readonly indexes: readonly Index[];
}

/**
 * The full-text search of one table's rows (DESIGN §5 "Nothing lost for good"): the text is what
 * `searchTextOf` gives, split into words at every run of non-alphanumerics, no stemming, no stop
 * words. SQLite keeps it in an FTS5 table beside the rows, carrying the columns a hit answers with;
 * PostgreSQL in a column of the table, with a GIN index over its words.
 */
export interface Search {
  readonly table: string;
  readonly since: number;
  /** Columns a hit needs besides the text: those that find the row, and what a hit shows. */
  readonly carries: readonly string[];
}

export interface SchemaVersion {
  readonly version: number;
  /** Recorded with the version in PostgreSQL's agentd_schema_migrations. */
  readonly name: string;
}

export interface Schema {
  readonly versions: readonly SchemaVersion[];
  readonly tables: readonly Table[];
  readonly search: Search;
}

const column = (name: string, type: ColumnType, since: number, notNull = true): Column => ({ name, type, notNull, since });

export const TRANSCRIPT_SCHEMA: Schema = {
  versions: [
    { version: 1, name: 'messages and tool starts' },
    { version: 2, name: 'full-text search of originals' },
    { version: 3, name: 'session runs' },
  ],
  tables: [
    {
      // One row per message under the seq the workflow allocated (DESIGN §6).
      name: 'messages',
      since: 1,
      columns: [
        column('session_id', 'text', 1),
        column('seq', 'integer', 1),
        column('role', 'text', 1),
        column('body', 'text', 1),
        column('tokens', 'integer', 1),
        column('chars', 'integer', 1),
        column('meta', 'text', 1),
        column('created_at', 'timestamp', 1),
      ],
      primaryKey: ['session_id', 'seq'],
      indexes: [],
    },
    {
      // The started markers of tools that change the world, so a retry knows an attempt began.
      name: 'tool_starts',
      since: 1,
      columns: [column('session_id', 'text', 1), column('seq', 'integer', 1), column('started_at', 'timestamp', 1)],
      primaryKey: ['session_id', 'seq'],
      indexes: [],
    },
    {
      // Which run first claimed a session id, so a second run of the id is refused or archives it.
      name: 'session_runs',
      since: 3,
      columns: [column('session_id', 'text', 3), column('first_run_id', 'text', 3), column('claimed_at', 'timestamp', 3)],
      primaryKey: ['session_id'],
      indexes: [],
    },
  ],
  search: { table: 'messages', since: 2, carries: ['session_id', 'seq', 'role'] },
};
