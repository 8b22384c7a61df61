/** Writing one message row and its search entry to a SQLite transcript file, on whichever thread holds the connection. */
import type Database from 'better-sqlite3';
import type { NewRow } from './newRow';

/** A writer for `db`: true when it stored the row, false when the seq was already stored. */
export function sqliteRowWriter(db: Database.Database): (row: NewRow) => boolean {
  const insert = db.prepare(
    `INSERT INTO messages (session_id, seq, role, body, tokens, chars, meta, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, seq) DO NOTHING`,
  );
  const index = db.prepare('INSERT INTO messages_fts (text, session_id, seq, role) VALUES (?, ?, ?, ?)');
  // One transaction: a row is never stored without its index entry, nor indexed twice.
  return db.transaction((row: NewRow): boolean => {
    const { changes } = insert.run(row.sessionId, row.seq, row.role, row.body, row.tokens, row.chars, row.meta, row.createdAt);
    if (changes === 1 && row.searchText !== undefined) index.run(row.searchText, row.sessionId, row.seq, row.role);
    return changes === 1;
  });
}
