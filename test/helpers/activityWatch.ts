/**
 * What Temporal knows about a session's activities: the attempt running now and on which worker
 * (from describe), and, from the history, which worker ran the attempt that counted.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export interface RunningAttempt {
  readonly activityType: string;
  readonly attempt: number;
  /** `pid@hostname`: the SDK's default identity, which agentd's workers keep. */
  readonly identity: string;
}

/** The started attempt of an activity of this type, if one is running now. */
export async function runningAttempt(client: Client, sessionId: string, activityType: string): Promise<RunningAttempt | undefined> {
  const { raw } = await client.workflow.getHandle(sessionId).describe();
  for (const pending of raw.pendingActivities ?? []) {
    if (pending.activityType?.name !== activityType) continue;
    if (pending.state !== temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) continue;
    if (!pending.lastWorkerIdentity) continue;
    return { activityType, attempt: pending.attempt ?? 1, identity: pending.lastWorkerIdentity };
  }
  return undefined;
}

/** The pid in an SDK identity (`pid@hostname`, or `pid@hostname/host` for a host worker). */
export function pidOf(identity: string): number {
  return Number(identity.split('@', 1)[0]);
}

/** One activity as the history closed it: the attempt that completed and the worker that ran it. */
export interface ClosedActivity {
  readonly activityType: string;
  /** Its place among the session's activities of this type, 0-based. */
  readonly index: number;
  readonly attempt: number;
  readonly identity: string;
  /** The `seq` its input names (a tool call's result row), when it names one. */
  readonly seq?: number;
}

/** The session's activities of `activityType`, in the order they were scheduled. */
export async function closedActivities(client: Client, sessionId: string, activityType: string): Promise<ClosedActivity[]> {
  const history = await client.workflow.getHandle(sessionId).fetchHistory();
  const scheduledById = new Map<string, temporal.api.history.v1.IActivityTaskScheduledEventAttributes>();
  const found: ClosedActivity[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) scheduledById.set(String(event.eventId), scheduled);
    const started = event.activityTaskStartedEventAttributes;
    const of = started ? scheduledById.get(String(started.scheduledEventId)) : undefined;
    if (started && of?.activityType?.name === activityType) {
      const seq = seqOf(of.input?.payloads?.[0]?.data);
      found.push({ activityType, index: found.length, attempt: started.attempt ?? 1, identity: started.identity ?? '', ...(seq === undefined ? {} : { seq }) });
    }
  }
  return found;
}

function seqOf(data: Uint8Array | null | undefined): number | undefined {
  const input: unknown = data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined;
  return typeof input === 'object' && input !== null && 'seq' in input && typeof input.seq === 'number' ? input.seq : undefined;
}
