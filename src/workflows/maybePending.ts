/**
 * Work that usually finishes at once and now and then needs an activity (an oversized result that
 * enters the context as a view, say). In a workflow each promise costs the SDK a stack capture, and
 * a session makes them at every step, so such work returns `undefined` when it is done and a
 * promise only when something is pending; the caller awaits only that.
 */
export type MaybePending = Promise<void> | undefined;

/** `next` after `pending`, at once when nothing is pending. */
export function thenRun(pending: MaybePending, next: () => void): MaybePending {
  if (pending === undefined) {
    next();
    return undefined;
  }
  return pending.then(next);
}
