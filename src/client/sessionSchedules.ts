/**
 * Sessions on a schedule, on Temporal Schedules: each tick starts agentSession with the input
 * resolved here once, under the id `<name>-<time>`, so every run is a session of its own. The
 * schedules are Temporal's, so the stock CLI (`temporal schedule list`) and the Web UI's Schedules
 * page show the same ones `agentd schedule list` does.
 */
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleHandle, type ScheduleSummary } from '@temporalio/client';
import { TASK_QUEUE, WORKFLOW_TYPE } from '../session/definitions';
import type { SessionInput } from '../session/input';
import { ScheduleInputError, type OverlapPolicy, type ScheduleSpec } from './scheduleSpec';
import { startSearchAttributes } from '../session/startAttributes';

const OVERLAP: Readonly<Record<OverlapPolicy, ScheduleOverlapPolicy>> = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
};

/** Kept in the schedule's memo, so a listing says when it fires in the words it was made with. */
const WHEN_MEMO = 'agentdWhen';

/** One schedule of sessions, as `agentd schedule list` prints it. */
export interface ScheduleRow {
  readonly name: string;
  /** `cron 0 3 * * *` or `every 10m`. */
  readonly when: string;
  readonly paused: boolean;
  readonly note?: string;
  readonly nextRuns: readonly string[];
  /** The sessions of the latest ticks, newest last. */
  readonly recentSessions: readonly string[];
}

/** What a schedule has done so far, from its description. */
export interface ScheduleCounts {
  readonly started: number;
  readonly skippedOverlap: number;
  readonly missedCatchupWindow: number;
  readonly running: readonly string[];
}

export class ScheduleMissingError extends Error {
  override readonly name = 'ScheduleMissingError';
  constructor(readonly scheduleName: string, options?: ErrorOptions) {
    super(`no schedule named ${scheduleName}`, options);
  }
}

export class SessionSchedules {
  constructor(
    private readonly client: Client,
    /** Whether the client's payloads are encrypted: then the model name stays out of the search index. */
    private readonly encrypted = client.options.loadedDataConverter.payloadCodecs.length > 0,
  ) {}

  /** Makes the schedule; a name already taken or a cron the server cannot read is a ScheduleInputError. */
  async create(spec: ScheduleSpec, input: SessionInput): Promise<void> {
    try {
      await this.client.schedule.create({
        scheduleId: spec.name,
        spec: {
          ...(spec.cron !== undefined ? { cronExpressions: [spec.cron] } : {}),
          ...(spec.every !== undefined ? { intervals: [{ every: spec.every }] } : {}),
          ...(spec.jitter !== undefined ? { jitter: spec.jitter } : {}),
        },
        action: {
          type: 'startWorkflow',
          workflowType: WORKFLOW_TYPE,
          taskQueue: TASK_QUEUE,
          workflowId: spec.name,
          args: [input],
          typedSearchAttributes: startSearchAttributes(this.encrypted ? undefined : input.model),
        },
        policies: { overlap: OVERLAP[spec.overlap], catchupWindow: spec.catchupWindow },
        memo: { [WHEN_MEMO]: spec.cron !== undefined ? `cron ${spec.cron}` : `every ${spec.every ?? ''}` },
      });
    } catch (error) {
      if (error instanceof ScheduleAlreadyRunning) throw new ScheduleInputError(`name: a schedule named ${spec.name} already exists`, { cause: error });
      // The client turns the server's "Invalid schedule spec" into a TypeError carrying the reason.
      if (error instanceof TypeError) throw new ScheduleInputError(`invalid schedule: ${error.message}`, { cause: error });
      throw error;
    }
  }

  /** The schedules that start sessions, by name; others in the namespace are not agentd's. */
  async list(): Promise<ScheduleRow[]> {
    const rows: ScheduleRow[] = [];
    for await (const summary of this.client.schedule.list()) {
      if (summary.action?.workflowType === WORKFLOW_TYPE) rows.push(rowOf(summary));
    }
    return rows.sort((a, b) => a.name.localeCompare(b.name));
  }

  async counts(name: string): Promise<ScheduleCounts> {
    const { info } = await this.call(name, (handle) => handle.describe());
    return {
      started: info.numActionsTaken,
      skippedOverlap: info.numActionsSkippedOverlap,
      missedCatchupWindow: info.numActionsMissedCatchupWindow,
      running: info.runningActions.map((action) => action.workflow.workflowId),
    };
  }

  pause(name: string, note?: string): Promise<void> {
    return this.call(name, (handle) => handle.pause(note));
  }

  unpause(name: string, note?: string): Promise<void> {
    return this.call(name, (handle) => handle.unpause(note));
  }

  /** A tick now, under the schedule's own overlap policy. */
  trigger(name: string): Promise<void> {
    return this.call(name, (handle) => handle.trigger());
  }

  /** The schedule goes; sessions it started run on. */
  delete(name: string): Promise<void> {
    return this.call(name, (handle) => handle.delete());
  }

  private async call<T>(name: string, work: (handle: ScheduleHandle) => Promise<T>): Promise<T> {
    try {
      return await work(this.client.schedule.getHandle(name));
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) throw new ScheduleMissingError(name, { cause: error });
      throw error;
    }
  }
}

function rowOf(summary: ScheduleSummary): ScheduleRow {
  const when = summary.memo?.[WHEN_MEMO];
  return {
    name: summary.scheduleId,
    when: typeof when === 'string' ? when : '(made outside agentd)',
    paused: summary.state.paused,
    ...(summary.state.note ? { note: summary.state.note } : {}),
    nextRuns: summary.info.nextActionTimes.map((time) => time.toISOString()),
    recentSessions: summary.info.recentActions.map((result) => result.action.workflow.workflowId),
  };
}
