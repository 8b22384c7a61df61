/** Keeps a long activity's heartbeat going so a lost worker or a cancellation is noticed quickly. */
import { Context } from '@temporalio/activity';

const HEARTBEAT_EVERY_MS = 5_000;

export async function withHeartbeat<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work(context.cancellationSignal);
  } finally {
    clearInterval(timer);
  }
}
