/**
 * The session's public API: workflow type, task queue, query and signal names. Defined once here and
 * used by the workflow, the CLI and the tests; the stock `temporal` CLI uses the same names.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { ApproveRequest } from '../policy/budget';
import type { ApproveResult, CompactNowResult, SessionState } from './state';

export const WORKFLOW_TYPE = 'agentSession';
export const TASK_QUEUE = 'agentd';

/** The queue of one host's workspace-touching activities; every worker polls its own besides TASK_QUEUE. */
export function hostTaskQueue(hostId: string): string {
  return `agentd-host-${hostId}`;
}

/**
 * Memo key a start sets (to true) to take over the id of a closed session: the old transcript is archived in
 * the store as `<id>@<its first run>` instead of refusing the start. `agentd start --replace-closed` sets it.
 */
export const REPLACE_CLOSED_MEMO = 'agentdReplaceClosed';

export const stateQuery = defineQuery<SessionState>('state');

export const MessageSignalSchema = z
  .object({
    text: z.string().trim().min(1, 'must not be empty'),
    /** Steer: the message enters the context before the next model call of the turn in progress, not at its end. */
    now: z.boolean().optional(),
  })
  .strict();
export type MessageSignal = z.infer<typeof MessageSignalSchema>;
/** A user message for the next turn, or with `now` for the next model call of this one. */
export const messageSignal = defineSignal<[MessageSignal]>('message');

/** Ask for a manual compaction, fire-and-forget: it runs before the next model call (or at once when waiting). */
export const compactSignal = defineSignal('compact');
/** Run a manual compaction and return what it did; rejected for a finished session or one already compacting. */
export const compactNowUpdate = defineUpdate<CompactNowResult>('compactNow');

/**
 * Lets a session paused by a budget guard go on, with raised limits; rejected unless the session is
 * `waiting_for_approval` or when the new limits would leave it exhausted. Cancel with workflow cancellation.
 */
export const approveUpdate = defineUpdate<ApproveResult, [ApproveRequest]>('approve');

export const InterruptRequestSchema = z
  .object({
    /** Why, in the operator's words: kept in the state's warnings and told to the model. */
    reason: z.string().trim().min(1, 'must not be empty').max(2_000),
    /** Go on with the turn after the interruption (the model is told); without it the session waits for a message. */
    continue: z.boolean().optional(),
  })
  .strict();
export type InterruptRequest = z.infer<typeof InterruptRequestSchema>;

export interface InterruptResult {
  /** The step that was cut off. */
  readonly step: number;
  /** What was in flight: `model call`, or the tool calls that got no result of their own. */
  readonly cut: string;
  /** True when the turn goes on; false when the session now waits for a message. */
  readonly continued: boolean;
}

/**
 * Stops the step in flight: its model call or tool calls are cancelled (the activities heartbeat, so
 * within seconds), every tool call without a result gets one saying it was interrupted with its effect
 * unknown, and the session waits for a message, or goes on with `continue`. Rejected when no step is in flight.
 */
export const interruptUpdate = defineUpdate<InterruptResult, [InterruptRequest]>('interrupt');
