/**
 * Inputs and results of the activities, shared (type-only) with the workflow. Every field is a
 * number, an id or a short string: bodies never cross into workflow history.
 */
import type { ChatMessage } from '../model/messages';
import type { MessageMeasure } from '../policy/ledger';
import type { SeqRun } from '../policy/seqRuns';

export interface StoreMessagesInput {
  sessionId: string;
  /** Messages whose text is already in history (task, signalled messages, system prompt). */
  messages: Array<{ seq: number; message: ChatMessage }>;
}

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface CallModelInput {
  sessionId: string;
  /** Where the assistant's reply is stored. */
  seq: number;
  /** The live context, in order. */
  context: SeqRun[];
  model: string;
  maxOutputTokens?: number;
}

export interface CallModelResult {
  measure: MessageMeasure;
  /** The calls to run, by id and tool name; their arguments stay in the store. */
  toolCalls: Array<{ id: string; name: string }>;
  /** The reply's text when it ends the turn (no tool calls), capped to `ANSWER_PREVIEW_CHARS`. */
  text?: string;
  usage: ModelUsage;
  /** True when the reply was already stored and the model was not called again. */
  replayed: boolean;
}

export interface RunToolInput {
  sessionId: string;
  /** Where the tool result is stored. */
  seq: number;
  /** Seq of the assistant message that declared the call. */
  callSeq: number;
  toolCallId: string;
  timeoutSeconds: number;
  outputCapChars: number;
}

export interface RunToolResult {
  measure: MessageMeasure;
  toolName: string;
  isError: boolean;
  /** Set when the agent called `finish`; the answer is capped to `ANSWER_PREVIEW_CHARS`. */
  finished?: { answer: string };
  replayed: boolean;
}

/** Longest answer text carried in workflow history; the whole text stays in the store. */
export const ANSWER_PREVIEW_CHARS = 4000;

/** Failure types the activities raise as non-retryable `ApplicationFailure`s. */
export const ActivityFailureType = {
  /** The request exceeded the model's context window. */
  contextOverflow: 'ContextOverflow',
  /** The endpoint rejected the request (400-class) for another reason: retrying cannot help. */
  modelRequestRejected: 'ModelRequestRejected',
  /** The endpoint is unreachable, overloaded or answered garbage: retried with backoff. */
  modelUnavailable: 'ModelUnavailable',
} as const;
export type ActivityFailureType = (typeof ActivityFailureType)[keyof typeof ActivityFailureType];
