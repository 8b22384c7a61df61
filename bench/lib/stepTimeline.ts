/**
 * Where a workflow's time went, read from its history's event times: how long workflow tasks waited
 * for the worker and ran in it, and how long each activity type ran, per step.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { localActivitiesOf } from '../../harness/localActivities';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Milliseconds summed over the whole history, per phase. */
export interface Timeline {
  /** Workflow task scheduled → started: the server hands the task to the worker's poll. */
  readonly workflowTaskDispatchMs: number;
  /** Workflow task started → completed: the worker runs the workflow code and replies. */
  readonly workflowTaskRunMs: number;
  /** Activity scheduled → started: 0 when dispatched eagerly in the workflow task's reply. */
  readonly activityDispatchMs: number;
  /** Activity started → completed, per activity type: the activity's own work plus its reply. */
  readonly activityRunMs: Readonly<Record<string, number>>;
  readonly workflowTasks: number;
  readonly activities: number;
  /** Activities run inside a workflow task (their time is the task's). */
  readonly localActivities: number;
  /** First event to last. */
  readonly totalMs: number;
}

const millis = (event: HistoryEvent): number => {
  const time = event.eventTime;
  return Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;
};

export async function timelineOf(client: Client, workflowId: string): Promise<Timeline> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const byId = new Map<number, HistoryEvent>(events.map((event) => [Number(event.eventId), event]));
  let workflowTaskDispatchMs = 0;
  let workflowTaskRunMs = 0;
  let activityDispatchMs = 0;
  let workflowTasks = 0;
  let activities = 0;
  const activityRunMs: Record<string, number> = {};
  for (const event of events) {
    const started = event.workflowTaskStartedEventAttributes;
    if (started) {
      const scheduled = byId.get(Number(started.scheduledEventId));
      if (scheduled) workflowTaskDispatchMs += millis(event) - millis(scheduled);
    }
    const completed = event.workflowTaskCompletedEventAttributes;
    if (completed) {
      const start = byId.get(Number(completed.startedEventId));
      if (start) workflowTaskRunMs += millis(event) - millis(start);
      workflowTasks += 1;
    }
    const done = event.activityTaskCompletedEventAttributes;
    if (done) {
      const scheduled = byId.get(Number(done.scheduledEventId));
      const start = byId.get(Number(done.startedEventId));
      const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name ?? 'unknown';
      if (scheduled && start) {
        activityDispatchMs += millis(start) - millis(scheduled);
        activityRunMs[type] = (activityRunMs[type] ?? 0) + millis(event) - millis(start);
      }
      activities += 1;
    }
  }
  const first = events[0];
  const last = events[events.length - 1];
  const totalMs = first && last ? millis(last) - millis(first) : 0;
  const localActivities = localActivitiesOf(history).length;
  return { workflowTaskDispatchMs, workflowTaskRunMs, activityDispatchMs, activityRunMs, workflowTasks, activities, localActivities, totalMs };
}
