/**
 * Every activity's timeouts and retry policy, in one table. Heartbeat timeouts derive from the
 * interval the activities heartbeat at; tool timeouts from the session's own tool timeout.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  proxyActivities,
  proxyLocalActivities,
  TemporalFailure,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import type { Activities } from '../activities';
import { ActivityFailureType, HEARTBEAT_EVERY_MS } from '../activities/types';
import type { SessionInput } from '../session/input';

/**
 * A worker that misses this many heartbeats in a row is taken for lost, and the attempt retried:
 * 6 s, so a paused or frozen worker's work moves to another within 10 s (issue 26), while a busy
 * event loop has 3 s of slack before a healthy attempt is taken for lost (its first heartbeat comes
 * after 3 s, FIRST_HEARTBEAT_AFTER_MS), 4.5 s between later ones.
 */
const HEARTBEATS_MISSED = 4;
const HEARTBEAT_TIMEOUT_MS = HEARTBEAT_EVERY_MS * HEARTBEATS_MISSED;

/** Errors of a model request that the same request would meet again. */
const MODEL_ERRORS_NOT_RETRIED = [ActivityFailureType.contextOverflow, ActivityFailureType.modelRequestRejected];

/**
 * Activities whose attempts fail mostly when the store is away: about 8 minutes of attempts (1, 2,
 * 4, 8, 16 s, then every 30 s), so a database restart or a failover is waited out, while a fault
 * that never heals still ends the session.
 */
const STORE_OUTAGE_RETRY = { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 } as const;

/** The tool enforces its own timeout; the extra minute covers loading, storing and killing. */
const TOOL_OVERHEAD_MS = 60_000;

export const activityOptions = {
  storeMessages: (): ActivityOptions => ({
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  }),
  callModel: (input: SessionInput): ActivityOptions => ({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: input.modelRetry.maximumIntervalSeconds * 1000,
      maximumAttempts: input.modelRetry.maximumAttempts,
      nonRetryableErrorTypes: MODEL_ERRORS_NOT_RETRIED,
    },
  }),
  /**
   * Tool calls, on the shared queue or on the queue of the host that owns the workspace. A tool's own
   * failure is a result, so what fails an attempt is the worker or the store: the attempts outlast an
   * outage of minutes; write tools run at most once anyway (DESIGN §6). With
   * `workspaceQueue`, how long the owning host may be away before the session moves (a
   * schedule-to-start timeout, never retried).
   */
  runTool: (input: SessionInput, workspaceQueue?: string): ActivityOptions => ({
    ...(workspaceQueue === undefined
      ? {}
      : { taskQueue: workspaceQueue, scheduleToStartTimeout: input.workspaceFailoverSeconds * 1000 }),
    startToCloseTimeout: input.toolTimeoutSeconds * 1000 + TOOL_OVERHEAD_MS,
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: STORE_OUTAGE_RETRY,
  }),
  /**
   * A quick read (`Tool.quick`) inside the workflow task, on the worker of the host that owns the
   * workspace (WorkspaceAffinity): the same limits as on a queue, but no heartbeat, which a local
   * activity has none of (its workflow task's own heartbeat stands for it).
   */
  runToolLocally: (input: SessionInput): LocalActivityOptions => ({
    startToCloseTimeout: input.toolTimeoutSeconds * 1000 + TOOL_OVERHEAD_MS,
    retry: STORE_OUTAGE_RETRY,
  }),
  /** Pruning views, session memories, reading a delegation: store work, with the same patience for a store outage. */
  storeWork: (): ActivityOptions => ({
    startToCloseTimeout: '1 minute',
    retry: STORE_OUTAGE_RETRY,
  }),
  /** Few attempts: a failed summary counts on the breaker, and the session goes on without it. */
  summarize: (): ActivityOptions => ({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 3, nonRetryableErrorTypes: MODEL_ERRORS_NOT_RETRIED },
  }),
  /** Unlimited attempts: a claim refused by the host being left is retried until another worker takes it. */
  claimWorkspace: (): ActivityOptions => ({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '10 seconds' },
  }),
};

/** The activities of one session on the shared queue, each with its options from the table. */
export function sessionActivities(input: SessionInput) {
  // proxyActivities returns Proxies with no own keys, so spreading them would copy nothing.
  const storeWork = proxyActivities<Pick<Activities, 'cutToolResults' | 'storeSessionMemory' | 'readDelegation'>>(activityOptions.storeWork());
  return {
    storeMessages: proxyActivities<Pick<Activities, 'storeMessages'>>(activityOptions.storeMessages()).storeMessages,
    callModel: proxyActivities<Pick<Activities, 'callModel'>>(activityOptions.callModel(input)).callModel,
    runTool: runToolActivity(input),
    runToolLocally: failingAsActivity('runTool', proxyLocalActivities<Pick<Activities, 'runTool'>>(activityOptions.runToolLocally(input)).runTool),
    cutToolResults: storeWork.cutToolResults,
    storeSessionMemory: storeWork.storeSessionMemory,
    readDelegation: storeWork.readDelegation,
    summarize: proxyActivities<Pick<Activities, 'summarize'>>(activityOptions.summarize()).summarize,
    claimWorkspace: proxyActivities<Pick<Activities, 'claimWorkspace'>>(activityOptions.claimWorkspace()).claimWorkspace,
  };
}

/** The tool activity on the shared queue, or on one workspace's queue. */
export function runToolActivity(input: SessionInput, workspaceQueue?: string): Activities['runTool'] {
  return proxyActivities<Pick<Activities, 'runTool'>>(activityOptions.runTool(input, workspaceQueue)).runTool;
}

export type SessionActivities = ReturnType<typeof sessionActivities>;

/**
 * A local activity's final failure reaches the workflow as the activity threw it, where a queued
 * activity's comes wrapped in an ActivityFailure that names it; wrapped alike, both are handled alike
 * (a refusal by another host, the session failing with "runTool failed: …").
 */
function failingAsActivity<I, O>(activityType: string, run: (input: I) => Promise<O>): (input: I) => Promise<O> {
  return (input) =>
    run(input).catch((error: unknown) => {
      if (!(error instanceof TemporalFailure) || error instanceof ActivityFailure || error instanceof CancelledFailure) throw error;
      const retryState = error instanceof ApplicationFailure && error.nonRetryable ? RetryState.NON_RETRYABLE_FAILURE : RetryState.MAXIMUM_ATTEMPTS_REACHED;
      throw new ActivityFailure(`${activityType} failed`, activityType, undefined, retryState, undefined, error);
    });
}
