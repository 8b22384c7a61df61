/** The default transcript store: one SQLite file (WAL), shared by the worker and the CLI of one host. */
import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as path from 'node:path';
import type { ChatMessage } from '../model/messages';
import { isLarge, newRow, type NewRow } from './newRow';
import { RequestThread } from './requestThread';
import { ftsQuery, MAX_SEARCH_HITS, searchTextOf, type SearchHit } from './searchText';
import { sqliteRowWriter } from './sqliteRowWriter';
import { applySqliteSchema } from './sqliteSchema';
import type { LargeRowRequest, RowWritten } from './sqliteWriterThread';
import { toStoredMessage, toToolCalls, type MessageRow } from './storedRow';
import {
  archivedKey,
  TranscriptStoreError,
  type SessionClaim,
  type SessionSummary,
  type TranscriptStore,
} from './transcriptStore';

/**
 * How long a statement waits for another connection's write lock before its SQLITE_BUSY goes to the
 * caller. The wait is asynchronous (BUSY_RETRY_MS steps on the event loop), not SQLite's busy
 * handler, which sleeps inside the call and holds the worker's thread, heartbeats and all, for as long.
 */
const BUSY_WAIT_MS = 5000;
const BUSY_RETRY_MS = [5, 10, 25, 50, 100] as const;

export class SqliteTranscriptStore implements TranscriptStore {
  private readonly db: Database.Database;
  private readonly selectOne: Database.Statement<[string, number], MessageRow>;
  private readonly selectToolCalls: Database.Statement<[string, number], { role: string; calls: string | null }>;
  private readonly writeRow: (row: NewRow) => boolean;
  /** Writes messages over OFF_THREAD_CHARS through a connection of its own, off the main thread. */
  private readonly largeRows: RequestThread<LargeRowRequest, RowWritten>;

  constructor(readonly file: string) {
    if (file !== ':memory:') createPrivately(file);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // Several processes (worker, CLI) share the file. Opening waits for a writer inside SQLite (once,
    // at start); every later statement fails at once and is retried on the event loop (`patiently`).
    this.db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
    applySqliteSchema(this.db, () => this.indexStoredRows());
    this.db.pragma('busy_timeout = 0');
    this.writeRow = sqliteRowWriter(this.db);
    this.largeRows = new RequestThread(path.join(__dirname, 'sqliteWriterThread.js'), { file });
    this.selectToolCalls = this.db.prepare("SELECT role, json_extract(body, '$.tool_calls') AS calls FROM messages WHERE session_id = ? AND seq = ?");
    this.selectOne = this.db.prepare('SELECT * FROM messages WHERE session_id = ? AND seq = ?');
  }

  async put(sessionId: string, seq: number, message: ChatMessage, meta: Record<string, unknown> = {}) {
    const existing = await this.patiently(() => this.selectOne.get(sessionId, seq));
    if (existing) return toStoredMessage(existing);
    const createdAt = new Date().toISOString();
    const written =
      isLarge(message) && this.file !== ':memory:'
        ? await this.largeRows.request({ sessionId, seq, message, meta, createdAt })
        : await this.writeHere(newRow(sessionId, seq, message, meta, createdAt));
    // A concurrent writer may have won the race for this seq: then its row is the one returned.
    if (!written.stored) return toStoredMessage(await this.patiently(() => this.mustGet(sessionId, seq)));
    // What was just written, without reading a large body back and parsing it again.
    const storedMeta = JSON.parse(JSON.stringify(meta)) as Record<string, unknown>;
    return { sessionId, seq, message, tokens: written.tokens, chars: written.chars, meta: storedMeta, createdAt };
  }

  async get(sessionId: string, seq: number) {
    const row = await this.patiently(() => this.selectOne.get(sessionId, seq));
    return row ? toStoredMessage(row) : undefined;
  }

  async toolCallsOf(sessionId: string, seq: number) {
    const row = await this.patiently(() => this.selectToolCalls.get(sessionId, seq));
    return toToolCalls(sessionId, seq, row);
  }

  async getMany(sessionId: string, seqs: readonly number[]) {
    const read = this.db.transaction(() => seqs.map((seq) => toStoredMessage(this.mustGet(sessionId, seq))));
    return this.patiently(() => read());
  }

  async search(sessionId: string, query: string, options: { limit?: number } = {}): Promise<SearchHit[]> {
    const match = ftsQuery(query);
    if (match === '') return [];
    const limit = Math.max(1, Math.min(options.limit ?? 10, MAX_SEARCH_HITS));
    const rows = await this.patiently(() =>
      this.db
        .prepare<[string, string, number], { seq: number; role: SearchHit['role']; snippet: string }>(
          `SELECT seq, role, snippet(messages_fts, 0, '[', ']', '…', 24) AS snippet
           FROM messages_fts WHERE messages_fts MATCH ? AND session_id = ? ORDER BY rank, seq DESC LIMIT ?`,
        )
        .all(match, sessionId, limit),
    );
    return rows.map((row) => ({ seq: Number(row.seq), role: row.role, snippet: row.snippet }));
  }

  async list(sessionId: string, options: { afterSeq?: number; limit?: number } = {}) {
    const rows = await this.patiently(() =>
      this.db
        .prepare<[string, number, number], MessageRow>('SELECT * FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?')
        .all(sessionId, options.afterSeq ?? -1, options.limit ?? -1),
    );
    return rows.map(toStoredMessage);
  }

  async markStarted(sessionId: string, seq: number): Promise<boolean> {
    const result = await this.patiently(() =>
      this.db
        .prepare('INSERT INTO tool_starts (session_id, seq, started_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
        .run(sessionId, seq, new Date().toISOString()),
    );
    return result.changes === 1;
  }

  async claimSession(sessionId: string, firstRunId: string, options: { replace: boolean }): Promise<SessionClaim> {
    const claim = this.db.transaction((): SessionClaim => {
      const owner = this.db
        .prepare<[string], { first_run_id: string }>('SELECT first_run_id FROM session_runs WHERE session_id = ?')
        .get(sessionId);
      if (owner?.first_run_id === firstRunId) return { kind: 'claimed' };
      const hasRows = this.db.prepare('SELECT 1 FROM messages WHERE session_id = ? LIMIT 1').get(sessionId) !== undefined;
      let claimed: SessionClaim = { kind: 'claimed' };
      if (owner !== undefined || hasRows) {
        if (!options.replace) return { kind: 'taken', ...(owner ? { byRunId: owner.first_run_id } : {}) };
        const archive = archivedKey(sessionId, owner?.first_run_id);
        this.db.prepare('UPDATE messages SET session_id = ? WHERE session_id = ?').run(archive, sessionId);
        this.db.prepare('UPDATE tool_starts SET session_id = ? WHERE session_id = ?').run(archive, sessionId);
        // The search index goes with the rows, or the new run would find the old run's words.
        this.db.prepare('UPDATE messages_fts SET session_id = ? WHERE session_id = ?').run(archive, sessionId);
        claimed = { kind: 'replaced', archivedAs: archive };
      }
      this.db
        .prepare(
          `INSERT INTO session_runs (session_id, first_run_id, claimed_at) VALUES (?, ?, ?)
           ON CONFLICT (session_id) DO UPDATE SET first_run_id = excluded.first_run_id, claimed_at = excluded.claimed_at`,
        )
        .run(sessionId, firstRunId, new Date().toISOString());
      return claimed;
    });
    // IMMEDIATE: take the write lock before reading, so two claims of one id cannot both see it free.
    return this.patiently(() => claim.immediate());
  }

  async sessions(): Promise<SessionSummary[]> {
    const rows = await this.patiently(() =>
      this.db
        .prepare<[], { session_id: string; messages: number; tokens: number; last_at: string }>(
          `SELECT session_id, COUNT(*) AS messages, SUM(tokens) AS tokens, MAX(created_at) AS last_at
           FROM messages GROUP BY session_id ORDER BY last_at DESC`,
        )
        .all(),
    );
    return rows.map((row) => ({ sessionId: row.session_id, messages: row.messages, tokens: row.tokens, lastAt: row.last_at }));
  }

  async close() {
    await this.largeRows.close();
    this.db.close();
  }

  private async writeHere(row: NewRow): Promise<RowWritten> {
    return { stored: await this.patiently(() => this.writeRow(row)), tokens: row.tokens, chars: row.chars };
  }

  /** Indexes the originals of a file written before the search existed (`applySqliteSchema` has just created the index). */
  private indexStoredRows(): void {
    const insert = this.db.prepare('INSERT INTO messages_fts (text, session_id, seq, role) VALUES (?, ?, ?, ?)');
    for (const row of this.db.prepare<[], MessageRow>('SELECT * FROM messages').all()) {
      const stored = toStoredMessage(row);
      const text = searchTextOf(stored.message, stored.meta);
      if (text !== undefined) insert.run(text, stored.sessionId, stored.seq, stored.message.role);
    }
  }

  /**
   * Runs `statement`, and again while another connection holds the write lock (SQLITE_BUSY), waiting
   * on the event loop between tries, for up to BUSY_WAIT_MS; then the BUSY error goes to the caller.
   */
  private async patiently<T>(statement: () => T): Promise<T> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return statement();
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
        await sleep(BUSY_RETRY_MS[Math.min(attempt, BUSY_RETRY_MS.length - 1)]);
      }
    }
  }

  private mustGet(sessionId: string, seq: number): MessageRow {
    const row = this.selectOne.get(sessionId, seq);
    if (!row) throw new TranscriptStoreError('missing_seq', `session ${sessionId} has no message at seq ${seq}`);
    return row;
  }
}

/**
 * Transcripts are private to the worker's user: a folder agentd creates is 0700 and a new store file
 * 0600 (SQLite gives its -wal and -shm files the database file's mode). An existing file keeps its mode.
 */
function createPrivately(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
}

/** SQLITE_BUSY and its extended codes (BUSY_SNAPSHOT, BUSY_RECOVERY…): another connection holds the lock. */
function isBusy(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY');
}
