/**
 * The session's public API: workflow type, task queue, query and signal names. Defined once here and
 * used by the workflow, the CLI and the tests; the stock `temporal` CLI uses the same names.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { z } from 'zod';
import type { SessionState } from './state';

export const WORKFLOW_TYPE = 'agentSession';
export const TASK_QUEUE = 'agentd';

export const stateQuery = defineQuery<SessionState>('state');

export const MessageSignalSchema = z.object({ text: z.string().trim().min(1, 'must not be empty') }).strict();
export type MessageSignal = z.infer<typeof MessageSignalSchema>;
/** A user message for the next turn. */
export const messageSignal = defineSignal<[MessageSignal]>('message');
