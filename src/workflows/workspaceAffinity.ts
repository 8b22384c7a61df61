/**
 * Which host's worker runs a session's tool calls: the session claims a workspace on its first tool
 * call and sends every later one to that host's queue; when nobody takes them for
 * `workspaceFailoverSeconds`, it claims a fresh workspace elsewhere. Runs in the workflow sandbox.
 */
import { ActivityFailure, patched, TimeoutFailure } from '@temporalio/workflow';
import type { RunToolInput, RunToolResult, WorkspaceClaim } from '../activities/types';
import { workspaceFailoverNotice } from '../model/noticeFormat';
import type { SessionInput } from '../session/input';
import type { WorkspaceReport } from '../session/state';
import { runToolActivity, type SessionActivities } from './activityOptions';
import type { AffinityCarry } from './sessionCarry';

/** Histories from before affinity ran every tool call on the shared queue; they must replay so. */
const AFFINITY_PATCH = 'workspace-affinity';

type RunTool = (input: RunToolInput) => Promise<RunToolResult>;

export class WorkspaceAffinity {
  private readonly byQueue = new Map<string, RunTool>();
  private claiming?: Promise<void>;
  private failingOver?: Promise<void>;

  constructor(
    private readonly sessionId: string,
    private readonly input: SessionInput,
    /** `runTool` on the shared queue, as sessions from before affinity call it, and `claimWorkspace`. */
    private readonly activities: Pick<SessionActivities, 'runTool' | 'claimWorkspace'>,
    /** Called on a failover with the warning for the state and the notice for the transcript (none when the host came back). */
    private readonly onFailover: (warning: string, notice?: string) => void,
    /** This run's slice of the session carry, changed in place. */
    private readonly carried: AffinityCarry,
  ) {}

  /** Runs the tool call on the host that owns the workspace, failing over when that host is gone. */
  async runTool(toolInput: RunToolInput): Promise<RunToolResult> {
    if (!patched(AFFINITY_PATCH)) return this.activities.runTool(toolInput);
    if (!this.carried.claim) await this.claimOnce();
    for (;;) {
      const claim = this.carried.claim!;
      try {
        return await this.runToolOn(claim.taskQueue)(toolInput);
      } catch (error) {
        if (!isScheduleToStartTimeout(error)) throw error;
        await this.failOverOnce(claim);
      }
    }
  }

  /**
   * Calls running side by side (reads) share one claim and one failover: the first to need it
   * asks, the others wait for its answer. One call at a time, this is a plain claim.
   */
  private async claimOnce(): Promise<void> {
    if (this.claiming) return this.claiming;
    this.claiming = this.activities.claimWorkspace({ sessionId: this.sessionId }).then((claim) => {
      this.carried.claim = claim;
    });
    try {
      await this.claiming;
    } finally {
      this.claiming = undefined;
    }
  }

  private async failOverOnce(from: WorkspaceClaim): Promise<void> {
    // Another call of the batch already moved the session on: retry there.
    if (this.carried.claim !== from) return;
    if (this.failingOver) return this.failingOver;
    this.failingOver = this.failOver(from);
    try {
      await this.failingOver;
    } finally {
      this.failingOver = undefined;
    }
  }

  report(): WorkspaceReport | undefined {
    const { claim, failovers } = this.carried;
    return claim ? { hostId: claim.hostId, taskQueue: claim.taskQueue, failovers } : undefined;
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
