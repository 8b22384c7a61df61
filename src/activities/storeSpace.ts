/**
 * Store writes that wait out a full disk. An activity whose result is in hand (a tool that ran, a
 * model reply that was paid for) must not lose it because the store has no room for it right now:
 * failing the attempt would spend one of the activity's few retries each time (a tool call has five,
 * about 15 s of backoff, then the session fails) and a retry would run the tool again or find it
 * "interrupted", or call and bill the model again. So the write is retried here, heartbeating with
 * the cause, until space is back or the attempt is cancelled or times out.
 */
import { Context } from '@temporalio/activity';
import { HEARTBEAT_EVERY_MS } from './types';

const FIRST_WAIT_MS = 250;

/** SQLite's SQLITE_FULL, an errno of a full disk or quota, PostgreSQL's disk_full (53100). */
export function isDiskFull(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === '53100';
}

/** Runs `write`; while it fails for lack of space, waits (heartbeating the cause) and runs it again. */
export async function whenStoreHasSpace<T>(what: string, write: () => Promise<T>): Promise<T> {
  let waitMs = FIRST_WAIT_MS;
  let since: number | undefined;
  for (;;) {
    try {
      const written = await write();
      if (since !== undefined) Context.current().log.warn(`${what}: stored after waiting ${Date.now() - since} ms for space`);
      return written;
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      const context = Context.current();
      const cause = `${(error as { code: string }).code}: ${error instanceof Error ? error.message : String(error)}`;
      if (since === undefined) {
        since = Date.now();
        context.log.warn(`${what}: the transcript store is full (${cause}); waiting for space`);
      }
      context.heartbeat({ waitingForStoreSpace: what, cause });
      // Throws CancelledFailure once the attempt is cancelled or times out: the workflow decides then.
      await context.sleep(waitMs);
      waitMs = Math.min(waitMs * 2, HEARTBEAT_EVERY_MS);
    }
  }
}
