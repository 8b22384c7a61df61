/**
 * Which host's worker runs a session's tool calls: the session claims a workspace on its first tool
 * call and sends every later one to that host's queue; when nobody takes them for
 * `workspaceFailoverSeconds`, it claims a fresh workspace elsewhere. Runs in the workflow sandbox.
 */
import { ActivityFailure, patched, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RunToolInput, RunToolResult, WorkspaceClaim } from '../activities/types';
import { workspaceFailoverNotice } from '../model/noticeFormat';
import type { SessionInput } from '../session/input';
import { TOOL_RETRY } from './activityOptions';
import type { WorkspaceReport } from '../session/state';

/** Histories from before affinity ran every tool call on the shared queue; they must replay so. */
export const AFFINITY_PATCH = 'workspace-affinity';

/** Carried through continue-as-new; absent in carries from before affinity. */
export interface AffinityCarry {
  claim?: WorkspaceClaim;
  failovers: number;
}

type RunTool = (input: RunToolInput) => Promise<RunToolResult>;

export class WorkspaceAffinity {
  private claim?: WorkspaceClaim;
  private failovers = 0;
  private readonly byQueue = new Map<string, RunTool>();
  private readonly claimWorkspace;

  constructor(
    private readonly sessionId: string,
    private readonly input: SessionInput,
    /** The tool activity on the shared queue, as sessions from before affinity call it. */
    private readonly sharedRunTool: RunTool,
    /** Called on a failover with the warning for the state and the notice for the transcript (none when the host came back). */
    private readonly onFailover: (warning: string, notice?: string) => void,
    carry?: AffinityCarry,
  ) {
    this.claimWorkspace = proxyActivities<Pick<Activities, 'claimWorkspace'>>({
      startToCloseTimeout: '30 seconds',
      // Unlimited attempts: a claim refused by the host being left is retried until another worker takes it.
      retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
    }).claimWorkspace;
    if (carry?.claim) this.claim = carry.claim;
    this.failovers = carry?.failovers ?? 0;
  }

  /** Runs the tool call on the host that owns the workspace, failing over when that host is gone. */
  async runTool(toolInput: RunToolInput): Promise<RunToolResult> {
    if (!patched(AFFINITY_PATCH)) return this.sharedRunTool(toolInput);
    this.claim ??= await this.claimWorkspace({ sessionId: this.sessionId });
    for (;;) {
      const claim = this.claim;
      try {
        return await this.runToolOn(claim.taskQueue)(toolInput);
      } catch (error) {
        if (!isScheduleToStartTimeout(error)) throw error;
        await this.failOver(claim);
      }
    }
  }

  report(): WorkspaceReport | undefined {
    return this.claim ? { hostId: this.claim.hostId, taskQueue: this.claim.taskQueue, failovers: this.failovers } : undefined;
  }

  carry(): AffinityCarry {
    return { ...(this.claim ? { claim: this.claim } : {}), failovers: this.failovers };
  }

  private async failOver(from: WorkspaceClaim): Promise<void> {
    const seconds = this.input.workspaceFailoverSeconds;
    this.claim = await this.claimWorkspace({ sessionId: this.sessionId, avoidHostId: from.hostId });
    if (this.claim.hostId === from.hostId) {
      // No other host took the claim and this one is back: its workspace, files and all, is still there.
      this.onFailover(`host ${from.hostId} took no tool call for ${seconds} s, then came back; the session stays there`);
      return;
    }
    this.failovers += 1;
    this.onFailover(
      `workspace failover: host ${from.hostId} took no tool call for ${seconds} s; ` +
        `the session goes on in a fresh workspace on host ${this.claim.hostId} (files written before are gone)`,
      workspaceFailoverNotice(from.hostId, this.claim.hostId, seconds),
    );
  }

  private runToolOn(taskQueue: string): RunTool {
    let runTool = this.byQueue.get(taskQueue);
    if (!runTool) {
      runTool = proxyActivities<Pick<Activities, 'runTool'>>({
        taskQueue,
        // How long the owning host may be away before the session moves; not retried by the server.
        scheduleToStartTimeout: this.input.workspaceFailoverSeconds * 1000,
        // The tool enforces its own timeout; the extra minute covers loading, storing and killing.
        startToCloseTimeout: (this.input.toolTimeoutSeconds + 60) * 1000,
        heartbeatTimeout: '20 seconds',
        retry: TOOL_RETRY,
      }).runTool;
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
