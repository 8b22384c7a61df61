/**
 * The thread a SQLite store writes its large messages on (`RequestThread`): its own connection to the
 * same file, where serializing, indexing and a 20 MB insert hold no one's heartbeats. Here SQLite's
 * busy handler may wait for another connection's lock: only this thread waits.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { ChatMessage } from '../model/messages';
import { newRow } from './newRow';
import { serveRequests } from './requestThread';
import { sqliteRowWriter } from './sqliteRowWriter';

export interface LargeRowRequest {
  readonly sessionId: string;
  readonly seq: number;
  readonly message: ChatMessage;
  readonly meta: Record<string, unknown>;
  readonly createdAt: string;
}

export interface RowWritten {
  readonly stored: boolean;
  readonly tokens: number;
  readonly chars: number;
}

const { file } = workerData as { file: string };
const db = new Database(file);
db.pragma('busy_timeout = 5000');
const write = sqliteRowWriter(db);

serveRequests<LargeRowRequest, RowWritten>(parentPort, (request) => {
  const row = newRow(request.sessionId, request.seq, request.message, request.meta, request.createdAt);
  return { stored: write(row), tokens: row.tokens, chars: row.chars };
});
