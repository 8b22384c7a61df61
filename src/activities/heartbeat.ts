/** Keeps a long activity's heartbeat going so a lost worker or a cancellation is noticed quickly. */
import { Context } from '@temporalio/activity';
import { HEARTBEAT_EVERY_MS } from './types';

/**
 * The first heartbeat waits two intervals, so work that ends sooner (a model call of a few seconds,
 * nearly every tool call) sends none: that one round trip through the worker and the server was a
 * large share of what a short step costs beyond the call itself
 * (DESIGN §8 "A fleet at real model latency"). The heartbeat timeout counts from the attempt's
 * start, so a lost worker is noticed as soon as before; a cancellation reaches work younger than
 * this when it reaches this age.
 */
export const FIRST_HEARTBEAT_AFTER_MS = 2 * HEARTBEAT_EVERY_MS;

/**
 * Runs `work` with the activity's cancellation signal. Once that signal fired, whatever the aborted
 * work threw (an openai abort error turned into a ModelUnavailable failure, say) gives way to the
 * cancellation itself, so the worker reports a cancelled or shut-down attempt, not a model outage.
 */
export async function withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const context = Context.current();
  const signal = context.cancellationSignal;
  const beats = heartbeatAfter(FIRST_HEARTBEAT_AFTER_MS, () => context.heartbeat());
  try {
    return await work(signal);
  } catch (error) {
    throw signal.aborted ? (signal.reason ?? error) : error;
  } finally {
    beats.stop();
  }
}

function heartbeatAfter(firstAfterMs: number, beat: () => void): { stop(): void } {
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    beat();
    interval = setInterval(beat, HEARTBEAT_EVERY_MS);
  }, firstAfterMs);
  return {
    stop() {
      clearTimeout(first);
      clearInterval(interval);
    },
  };
}
