/**
 * Store writes of what an activity already has in hand — a tool that ran, a model reply that was
 * paid for — wait out a store that cannot take them right now (a full disk, a file locked by another
 * process, a database restarting) inside the attempt. Failing the attempt instead would spend one of
 * its retries, and the retry would find a write tool's started mark and report its effect as
 * unknown, or call and bill the model again.
 */
import { Context } from '@temporalio/activity';
import { TranscriptStoreError } from '../store/transcriptStore';
import { withHeartbeat } from './heartbeat';
import { HEARTBEAT_EVERY_MS } from './types';

const FIRST_WAIT_MS = 250;

/** SQLite's SQLITE_FULL, an errno of a full disk or quota, PostgreSQL's disk_full (53100). */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT', '53100']);

/**
 * Errors that pass once the store is back: a full disk, SQLite's busy and locked files, a lost or
 * refused connection, and PostgreSQL's connection and shutdown classes (08, 57P).
 */
function isStoreAway(error: unknown): boolean {
  if (error instanceof TranscriptStoreError) return false;
  const code = codeOf(error);
  if (code !== undefined && (DISK_FULL_CODES.has(code) || /^(SQLITE_BUSY|SQLITE_LOCKED|ECONN|ETIMEDOUT|EPIPE|08|57P)/.test(code))) return true;
  return error instanceof Error && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message);
}

/** Runs `write`; while the store is away, waits (heartbeating the cause) and runs it again until the attempt ends. */
export async function writePatiently<T>(what: string, write: () => Promise<T>): Promise<T> {
  let waitMs = FIRST_WAIT_MS;
  let since: number | undefined;
  for (;;) {
    try {
      // A large message takes seconds to count and write: the attempt must not look lost meanwhile.
      const written = await withHeartbeat(() => write());
      if (since !== undefined) Context.current().log.warn(`${what}: stored after waiting ${Date.now() - since} ms for the store`);
      return written;
    } catch (error) {
      if (!isStoreAway(error)) throw error;
      const context = Context.current();
      const code = codeOf(error);
      const cause = `${code ?? 'error'}: ${error instanceof Error ? error.message : String(error)}`;
      if (since === undefined) {
        since = Date.now();
        const full = code !== undefined && DISK_FULL_CODES.has(code);
        context.log.warn(`${what}: the transcript store ${full ? 'is full' : 'cannot take it now'} (${cause}); waiting for it`);
      }
      context.heartbeat({ waitingForStore: what, cause });
      // Throws once the attempt is cancelled or times out: the workflow decides then.
      await context.sleep(waitMs);
      waitMs = Math.min(waitMs * 2, HEARTBEAT_EVERY_MS);
    }
  }
}

function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
