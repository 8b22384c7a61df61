/**
 * The transcript store on PostgreSQL, for workers on several hosts: the same idempotent semantics
 * as the SQLite store, over a connection pool. The schema is migrated when the store opens.
 */
import pg from 'pg';
import type { ChatMessage } from '../model/messages';
import { countMessageChars, countMessageTokens } from '../model/tokens';
import { migrate } from './postgresMigrations';
import { SEARCH_VECTOR, words } from './postgresSchema';
import { ftsQuery, MAX_SEARCH_HITS, searchTextOf, type SearchHit } from './searchText';
import { toStoredMessage, toToolCalls, type MessageRow } from './storedRow';
import {
  archivedKey,
  TranscriptStoreError,
  type SessionClaim,
  type SessionSummary,
  type TranscriptStore,
} from './transcriptStore';

export interface PostgresStoreOptions {
  /** A `postgres://` URL; TLS and the like through its query parameters (`sslmode=…`). */
  readonly url: string;
  /** @default 10 */
  readonly maxConnections?: number;
  /**
   * Told about a pooled connection that failed while idle (server restart, network cut). The pool
   * replaces it; without a listener, node-postgres would crash the process.
   */
  readonly onIdleError?: (error: Error) => void;
}

const COLUMNS = 'session_id, seq, body, tokens, chars, meta, created_at';

export class PostgresTranscriptStore implements TranscriptStore {
  private constructor(private readonly pool: pg.Pool) {}

  /** Connects, migrates the schema (safe when several processes start at once) and returns the store. */
  static async open(options: PostgresStoreOptions): Promise<PostgresTranscriptStore> {
    const pool = new pg.Pool({ connectionString: options.url, max: options.maxConnections ?? 10 });
    const onIdleError =
      options.onIdleError ?? ((error: Error) => process.stderr.write(`agentd store: idle PostgreSQL connection lost: ${error.message}\n`));
    pool.on('error', onIdleError);
    try {
      await migrate(pool);
    } catch (cause) {
      await pool.end().catch(() => undefined);
      // pg's messages name host and database, never the password.
      throw new TranscriptStoreError('unavailable', `PostgreSQL store could not be opened: ${errorText(cause)}`, { cause });
    }
    return new PostgresTranscriptStore(pool);
  }

  async put(sessionId: string, seq: number, message: ChatMessage, meta: Record<string, unknown> = {}) {
    const inserted = await this.pool.query<MessageRow>(
      `INSERT INTO messages (session_id, seq, role, body, tokens, chars, meta, created_at, search_text)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (session_id, seq) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        sessionId,
        seq,
        message.role,
        JSON.stringify(message),
        countMessageTokens(message),
        countMessageChars(message),
        JSON.stringify(meta),
        new Date(),
        searchTextOf(message, meta) ?? null,
      ],
    );
    const row = inserted.rows[0];
    if (row) return toStoredMessage(row);
    // The seq was already stored (a retry, or a concurrent writer won): that row stands.
    return toStoredMessage(await this.mustGet(sessionId, seq));
  }

  async get(sessionId: string, seq: number) {
    const row = await this.selectOne(sessionId, seq);
    return row ? toStoredMessage(row) : undefined;
  }

  async toolCallsOf(sessionId: string, seq: number) {
    const { rows } = await this.pool.query<{ role: string; calls: string | null }>(
      `SELECT role, (body::json -> 'tool_calls')::text AS calls FROM messages WHERE session_id = $1 AND seq = $2`,
      [sessionId, seq],
    );
    return toToolCalls(sessionId, seq, rows[0]);
  }

  async getMany(sessionId: string, seqs: readonly number[]) {
    if (seqs.length === 0) return [];
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND seq = ANY($2::integer[])`,
      [sessionId, [...new Set(seqs)]],
    );
    const bySeq = new Map(rows.map((row) => [row.seq, row]));
    return seqs.map((seq) => {
      const row = bySeq.get(seq);
      if (!row) throw missingSeq(sessionId, seq);
      return toStoredMessage(row);
    });
  }

  async search(sessionId: string, query: string, options: { limit?: number } = {}): Promise<SearchHit[]> {
    if (ftsQuery(query) === '') return [];
    const limit = Math.max(1, Math.min(options.limit ?? 10, MAX_SEARCH_HITS));
    // Each word must occur, as in the SQLite store: the words joined by &, split as the index splits them.
    const { rows } = await this.pool.query<{ seq: number; role: SearchHit['role']; snippet: string }>(
      `WITH q AS (SELECT plainto_tsquery('simple', ${words('$2')}) AS query)
       SELECT seq, role,
              ts_headline('simple', ${words('search_text')}, q.query,
                          'StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=…') AS snippet
       FROM messages, q
       WHERE session_id = $1 AND ${SEARCH_VECTOR} @@ q.query
       ORDER BY ts_rank(${SEARCH_VECTOR}, q.query) DESC, seq DESC
       LIMIT $3`,
      [sessionId, query, limit],
    );
    return rows.map((row) => ({ seq: row.seq, role: row.role, snippet: row.snippet }));
  }

  async list(sessionId: string, options: { afterSeq?: number; limit?: number } = {}) {
    // LIMIT NULL is no limit, as SQLite's LIMIT -1.
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [sessionId, options.afterSeq ?? -1, options.limit ?? null],
    );
    return rows.map(toStoredMessage);
  }

  async markStarted(sessionId: string, seq: number): Promise<boolean> {
    const result = await this.pool.query(
      'INSERT INTO tool_starts (session_id, seq, started_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [sessionId, seq, new Date()],
    );
    return result.rowCount === 1;
  }

  async claimSession(sessionId: string, firstRunId: string, options: { replace: boolean }): Promise<SessionClaim> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Serialises claims of one id: the second waits here and then sees the first one's row.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentd-claim:${sessionId}`]);
      const owner = (
        await client.query<{ first_run_id: string }>('SELECT first_run_id FROM session_runs WHERE session_id = $1', [sessionId])
      ).rows[0];
      if (owner?.first_run_id === firstRunId) {
        await client.query('COMMIT');
        return { kind: 'claimed' };
      }
      const hasRows = (await client.query('SELECT 1 FROM messages WHERE session_id = $1 LIMIT 1', [sessionId])).rowCount !== 0;
      let claimed: SessionClaim = { kind: 'claimed' };
      if (owner !== undefined || hasRows) {
        if (!options.replace) {
          await client.query('ROLLBACK');
          return { kind: 'taken', ...(owner ? { byRunId: owner.first_run_id } : {}) };
        }
        const archive = archivedKey(sessionId, owner?.first_run_id);
        await client.query('UPDATE messages SET session_id = $1 WHERE session_id = $2', [archive, sessionId]);
        await client.query('UPDATE tool_starts SET session_id = $1 WHERE session_id = $2', [archive, sessionId]);
        claimed = { kind: 'replaced', archivedAs: archive };
      }
      await client.query(
        `INSERT INTO session_runs (session_id, first_run_id, claimed_at) VALUES ($1, $2, $3)
         ON CONFLICT (session_id) DO UPDATE SET first_run_id = EXCLUDED.first_run_id, claimed_at = EXCLUDED.claimed_at`,
        [sessionId, firstRunId, new Date()],
      );
      await client.query('COMMIT');
      return claimed;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async sessions(): Promise<SessionSummary[]> {
    // COUNT and SUM are bigint, which node-postgres returns as strings.
    const { rows } = await this.pool.query<{ session_id: string; messages: string; tokens: string; last_at: Date }>(
      `SELECT session_id, COUNT(*) AS messages, SUM(tokens) AS tokens, MAX(created_at) AS last_at
       FROM messages GROUP BY session_id ORDER BY last_at DESC`,
    );
    return rows.map((row) => ({
      sessionId: row.session_id,
      messages: Number(row.messages),
      tokens: Number(row.tokens),
      lastAt: row.last_at.toISOString(),
    }));
  }

  async close() {
    await this.pool.end();
  }

  private async selectOne(sessionId: string, seq: number): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(`SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND seq = $2`, [sessionId, seq]);
    return rows[0];
  }

  private async mustGet(sessionId: string, seq: number): Promise<MessageRow> {
    const row = await this.selectOne(sessionId, seq);
    if (!row) throw missingSeq(sessionId, seq);
    return row;
  }
}

function missingSeq(sessionId: string, seq: number): TranscriptStoreError {
  return new TranscriptStoreError('missing_seq', `session ${sessionId} has no message at seq ${seq}`);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
