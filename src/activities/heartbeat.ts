/** Keeps a long activity's heartbeat going so a lost worker or a cancellation is noticed quickly. */
import { Context } from '@temporalio/activity';
import { HEARTBEAT_EVERY_MS } from './types';

/**
 * Runs `work` with the activity's cancellation signal. Once that signal fired, whatever the aborted
 * work threw (an openai abort error turned into a ModelUnavailable failure, say) gives way to the
 * cancellation itself, so the worker reports a cancelled or shut-down attempt, not a model outage.
 */
export async function withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const context = Context.current();
  const signal = context.cancellationSignal;
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work(signal);
  } catch (error) {
    throw signal.aborted ? (signal.reason ?? error) : error;
  } finally {
    clearInterval(timer);
  }
}
