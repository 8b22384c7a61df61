/** Timeouts and retry policies of the activities, per session (tool timeouts are a session setting). */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { ActivityFailureType } from '../activities/types';
import type { SessionInput } from '../session/input';

/** Tool calls on any queue: a few attempts (write tools run at most once anyway, DESIGN §6). */
export const TOOL_RETRY = { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 } as const;

export function sessionActivities(input: SessionInput) {
  const store = proxyActivities<Pick<Activities, 'storeMessages'>>({
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  const model = proxyActivities<Pick<Activities, 'callModel'>>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '20 seconds',
    retry: {
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: input.modelRetry.maximumIntervalSeconds * 1000,
      maximumAttempts: input.modelRetry.maximumAttempts,
      nonRetryableErrorTypes: [ActivityFailureType.contextOverflow, ActivityFailureType.modelRequestRejected],
    },
  });
  const tools = proxyActivities<Pick<Activities, 'runTool'>>({
    // The tool enforces its own timeout; the extra minute covers loading, storing and killing.
    startToCloseTimeout: (input.toolTimeoutSeconds + 60) * 1000,
    heartbeatTimeout: '20 seconds',
    retry: TOOL_RETRY,
  });
  const compaction = proxyActivities<Pick<Activities, 'cutToolResults' | 'storeSessionMemory'>>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  });
  const summary = proxyActivities<Pick<Activities, 'summarize'>>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '20 seconds',
    // Few attempts: a failed summary counts on the breaker, and the session goes on without it.
    retry: {
      initialInterval: '2 seconds',
      maximumInterval: '30 seconds',
      maximumAttempts: 3,
      nonRetryableErrorTypes: [ActivityFailureType.contextOverflow, ActivityFailureType.modelRequestRejected],
    },
  });
  // proxyActivities returns Proxies with no own keys, so spreading them would copy nothing.
  return {
    storeMessages: store.storeMessages,
    callModel: model.callModel,
    runTool: tools.runTool,
    cutToolResults: compaction.cutToolResults,
    storeSessionMemory: compaction.storeSessionMemory,
    summarize: summary.summarize,
  };
}

export type SessionActivities = ReturnType<typeof sessionActivities>;
