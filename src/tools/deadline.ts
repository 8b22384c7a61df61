/** Bounds a file tool's work by the call's time limit and abort signal; pure timers, no I/O of its own. */
import { ToolInputError, type ToolContext } from './tool';

/**
 * Settles with `work`, or with a ToolInputError when the call's time limit passes first, or with the abort
 * reason when the activity is cancelled. The work itself cannot be interrupted in flight (a file system call
 * runs to its end); what this guarantees is that the activity answers on time and its slot is freed. The
 * file tools do not block on pipes or devices (see regularFile.ts), so nothing they start can hold a
 * threadpool thread for long; this is the second line, for a file system that hangs (a dead network mount).
 */
export async function withinDeadline<T>(ctx: Pick<ToolContext, 'signal' | 'timeoutMs'>, what: string, work: () => Promise<T>): Promise<T> {
  ctx.signal.throwIfAborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new ToolInputError(`${what} did not finish within ${ctx.timeoutMs / 1000}s, the time limit for one tool call`)),
      Math.min(ctx.timeoutMs, 2 ** 31 - 1),
    );
    onAbort = () => reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('the tool call was cancelled'));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work(), limit]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) ctx.signal.removeEventListener('abort', onAbort);
  }
}
