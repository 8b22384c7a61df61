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
  /**
   * Set on a session's first store: claim the session's rows for this run first (`TranscriptStore.claimSession`),
   * so a reused id never sees another run's transcript. Absent in histories from before claims.
   */
  claim?: { firstRunId: string; replace: boolean };
}

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the endpoint's cache (`usage.prompt_tokens_details.cached_tokens`), when reported. */
  cachedTokens?: number;
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
  /**
   * The calls to run, by id and tool name; their arguments stay in the store, only a short hash of
   * name and arguments (`fingerprint`) comes along, for the repeated-call guard.
   */
  toolCalls: Array<{ id: string; name: string; fingerprint?: string }>;
  /** The reply's text when it ends the turn (no tool calls), capped to `ANSWER_PREVIEW_CHARS`. */
  text?: string;
  usage: ModelUsage;
  /** Tokens the tool definitions add to every request (our tokenizer), for the context estimate. */
  toolSchemaTokens: number;
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

export interface ClaimWorkspaceInput {
  sessionId: string;
  /** The host a failing-over session leaves: its worker must not claim the new workspace. */
  avoidHostId?: string;
}

/** Where a session's workspace lives: the host, and the task queue its tool activities go to. */
export interface WorkspaceClaim {
  hostId: string;
  taskQueue: string;
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
  /** The model's summary was not shorter than what it replaces, or lacked its sections. */
  summaryRejected: 'SummaryRejected',
  /** claimWorkspace ran on the host being left; retried so another worker takes it. */
  workspaceHostAvoided: 'WorkspaceHostAvoided',
  /** The store holds another run's rows under this session id, and no replacement was asked for. */
  sessionIdReused: 'SessionIdReused',
} as const;
export type ActivityFailureType = (typeof ActivityFailureType)[keyof typeof ActivityFailureType];

/** One head-and-tail view to store: `sourceSeq` is always an original body, never another view. */
export interface ViewRequest {
  sourceSeq: number;
  viewSeq: number;
  headChars: number;
  tailChars: number;
}

export interface CutToolResultsInput {
  sessionId: string;
  views: ViewRequest[];
}

export interface SummarizeInput {
  sessionId: string;
  /** Where the summary message is stored. */
  seq: number;
  /** Pinned messages (system prompt, task), replayed first so a provider's prompt cache can hit. */
  pinned: SeqRun[];
  /** The live seqs to summarize, in context order; a previous summary among them is merged. */
  region: SeqRun[];
  /** The original seqs the summary will stand for, named in its header. */
  covers: SeqRun[];
  model: string;
  /** Output limit of the summary, in tokens. */
  budgetTokens: number;
  /** The session's usable window: a region too big for one request is summarized in chunks. */
  contextWindow: number;
}

export interface SummarizeResult {
  measure: MessageMeasure;
  usage: ModelUsage;
  /** Model calls it took (more than one when the region was summarized in chunks). */
  calls: number;
}
