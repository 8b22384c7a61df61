/**
 * Which host's worker runs a session's tool calls: the session claims a workspace on its first tool
 * call and sends every later one to that host's queue; when nobody takes them for
 * `workspaceFailoverSeconds`, it claims a fresh workspace elsewhere. While the session's workflow
 * tasks run on the owner itself, a call goes eagerly to that worker instead, and a quick read runs
 * inside the workflow task. Runs in the workflow sandbox.
 */
import { ActivityFailure, ApplicationFailure, patched, TimeoutFailure } from '@temporalio/workflow';
import { ActivityFailureType, type RunToolInput, type RunToolResult, type WorkspaceClaim } from '../activities/types';
import { workspaceFailoverNotice } from '../model/noticeFormat';
import type { SessionInput } from '../session/input';
import type { WorkspaceReport } from '../session/state';
import { runToolActivity, type SessionActivities } from './activityOptions';
import type { AffinityCarry } from './sessionCarry';

/** Histories from before affinity ran every tool call on the shared queue; they must replay so. */
const AFFINITY_PATCH = 'workspace-affinity';
/** Histories from before the eager attempt sent every call straight to the host queue. */
const OWNER_EAGERLY_PATCH = 'workspace-owner-eagerly';
/** Histories from before quick reads ran as local activities sent them eagerly too. */
const QUICK_LOCALLY_PATCH = 'quick-tool-calls-locally';

type RunTool = (input: RunToolInput) => Promise<RunToolResult>;

export class WorkspaceAffinity {
  private readonly byQueue = new Map<string, RunTool>();
  // Calls running side by side (reads) share one claim and one failover: the first to need it asks, the others wait for its answer.
  private readonly claiming = new SharedRun();
  private readonly failingOver = new SharedRun();
  /** The host whose worker ran the latest model call, where the next tool call's workflow task most likely runs. */
  private modelHost?: string;
  /** Off for the rest of this run once a worker of another host refused a call: this cluster's tasks do not stay on one worker. */
  private eagerRefused = false;

  constructor(
    private readonly sessionId: string,
    private readonly input: SessionInput,
    /** `runTool` on the shared queue, as sessions from before affinity and calls sent eagerly to the owner use it, `runToolLocally` and `claimWorkspace`. */
    private readonly activities: Pick<SessionActivities, 'runTool' | 'runToolLocally' | 'claimWorkspace'>,
    /** Called on a failover with the warning for the state and the notice for the transcript (none when the host came back). */
    private readonly onFailover: (warning: string, notice?: string) => void,
    /** This run's slice of the session carry, changed in place. */
    private readonly carried: AffinityCarry,
  ) {}

  /** Runs the tool call on the host that owns the workspace, failing over when that host is gone; `quickRead` for a quick tool's read. */
  async runTool(toolInput: RunToolInput, quickRead: boolean): Promise<RunToolResult> {
    if (!patched(AFFINITY_PATCH)) return this.activities.runTool(toolInput);
    if (!this.carried.claim) {
      await this.claiming.run(async () => {
        this.carried.claim = await this.activities.claimWorkspace({ sessionId: this.sessionId });
      });
    }
    const owner = this.carried.claim!.hostId;
    if (this.modelHost === owner && !this.eagerRefused && patched(OWNER_EAGERLY_PATCH)) {
      try {
        return await this.onThisWorker(quickRead)({ ...toolInput, onlyOnHost: owner });
      } catch (error) {
        if (!isRefusedElsewhere(error)) throw error;
        this.eagerRefused = true;
      }
    }
    for (;;) {
      const claim = this.carried.claim!;
      try {
        return await this.runToolOn(claim.taskQueue)(toolInput);
      } catch (error) {
        if (!isScheduleToStartTimeout(error)) throw error;
        // Another call of the batch may have moved the session on already: then retry there.
        if (this.carried.claim === claim) await this.failingOver.run(() => this.failOver(claim));
      }
    }
  }

  /** Where the session's latest model call ran (absent in histories from before it was reported). */
  noteModelHost(hostId: string | undefined): void {
    this.modelHost = hostId;
  }

  report(): WorkspaceReport | undefined {
    const { claim, failovers } = this.carried;
    return claim ? { hostId: claim.hostId, taskQueue: claim.taskQueue, failovers } : undefined;
  }

  /**
   * How a call reaches the worker running this workflow task, taken for the owner's. A quick read runs
   * inside the task (a local activity), which saves a step the activity's round trip through the
   * server and the workflow task its result would start; a worker lost meanwhile takes the task with
   * it, and the worker that replays it runs the read again, or refuses it on another host. Any
   * other call goes on the shared queue with the usual retries: the server hands its first attempt
   * straight back to this worker (eager dispatch), and a retry after a lost worker goes to whoever
   * polls first, which runs it on the owner's host and refuses it anywhere else.
   */
  private onThisWorker(quickRead: boolean): RunTool {
    return quickRead && patched(QUICK_LOCALLY_PATCH) ? this.activities.runToolLocally : this.activities.runTool;
  }

  private async failOver(from: WorkspaceClaim): Promise<void> {
    const seconds = this.input.workspaceFailoverSeconds;
    const claim = await this.activities.claimWorkspace({ sessionId: this.sessionId, avoidHostId: from.hostId });
    this.carried.claim = claim;
    if (claim.hostId === from.hostId) {
      // No other host took the claim and this one is back: its workspace, files and all, is still there.
      this.onFailover(`host ${from.hostId} took no tool call for ${seconds} s, then came back; the session stays there`);
      return;
    }
    this.carried.failovers += 1;
    this.onFailover(
      `workspace failover: host ${from.hostId} took no tool call for ${seconds} s; ` +
        `the session goes on in a fresh workspace on host ${claim.hostId} (files written before are gone)`,
      workspaceFailoverNotice(from.hostId, claim.hostId, seconds),
    );
  }

  private runToolOn(taskQueue: string): RunTool {
    let runTool = this.byQueue.get(taskQueue);
    if (!runTool) {
      runTool = runToolActivity(this.input, taskQueue);
      this.byQueue.set(taskQueue, runTool);
    }
    return runTool;
  }
}

function isScheduleToStartTimeout(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === 'SCHEDULE_TO_START'
  );
}

function isRefusedElsewhere(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === ActivityFailureType.workspaceElsewhere;
}

/** One piece of work at a time: a caller arriving while it runs waits for that run instead of starting another. */
class SharedRun {
  private current?: Promise<void>;

  run(work: () => Promise<void>): Promise<void> {
    this.current ??= work().finally(() => {
      this.current = undefined;
    });
    return this.current;
  }
}
