/**
 * Inputs and results of the activities, shared (type-only) with the workflow. Every field is a
 * number, an id or a short string: bodies never cross into workflow history.
 */
import { z } from 'zod';
import type { SummaryRequestShape } from '../model/summaryFormat';
import type { ChatMessage } from '../model/messages';
import type { MessageMeasure } from '../policy/ledger';
import type { SeqRun } from '../policy/seqRuns';
import { SummaryRejection } from '../model/summaryAcceptance';
import type { ToolEffect } from '../tools/tool';
import type { ToolFilter } from '../session/toolFilter';
import type { StepTrace } from '../telemetry/stepTrace';
import type { DelegationOutcome } from './delegationTypes';

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

export const ModelUsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  /** Prompt tokens served from the endpoint's cache (`usage.prompt_tokens_details.cached_tokens`), when reported. */
  cachedTokens: z.number().int().nonnegative().optional(),
});
export type ModelUsage = z.infer<typeof ModelUsageSchema>;

export interface CallModelInput {
  sessionId: string;
  /** Where the assistant's reply is stored. */
  seq: number;
  /** The live context, in order. */
  context: SeqRun[];
  model: string;
  maxOutputTokens?: number;
  /** The most tool calls of the reply the session keeps and runs (`maxToolCallsPerReply`); absent in older histories. */
  maxToolCalls?: number;
  /** Which tools the session sees; all when absent. */
  tools?: ToolFilter;
  /** The step's trace, for this call's span (DESIGN §8 "Traces"). */
  trace?: StepTrace;
}

export interface CallModelResult {
  measure: MessageMeasure;
  /**
   * The calls to run, by id and tool name; their arguments stay in the store, only a short hash of
   * name and arguments (`fingerprint`) comes along, for the repeated-call guard. `effect` is the
   * named tool's (absent for a tool the session does not have, and in histories from before it):
   * consecutive `read` calls run side by side. `quick` when the tool is (`Tool.quick`): the call may
   * run as a local activity. Absent otherwise, and in histories from before it.
   */
  toolCalls: Array<{ id: string; name: string; fingerprint?: string; effect?: ToolEffect; quick?: true }>;
  /** The reply's text when it ends the turn (no tool calls), capped to `ANSWER_PREVIEW_CHARS`. */
  text?: string;
  /** Calls the reply declared past `maxToolCalls`: stored beside it, never run. Absent when none. */
  droppedToolCalls?: number;
  usage: ModelUsage;
  /** Tokens the tool definitions add to every request (our tokenizer), for the context estimate. */
  toolSchemaTokens: number;
  /** True when the reply was already stored and the model was not called again. */
  replayed: boolean;
  /**
   * 1 when this attempt is a retry (attempt > 1) that found no reply stored: the attempt before may
   * have been answered and billed and then lost with its worker (DESIGN §6 "Spend under crashes"). Its
   * tokens are unknown. Absent when 0, and in histories from before it.
   */
  possiblyBilledCalls?: number;
  /**
   * The host whose worker ran this call, which is where the session's workflow tasks run now: its
   * next tool call tries that worker first when that host owns the workspace. Absent in histories
   * from before it.
   */
  hostId?: string;
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
  /** Longest output kept whole; absent from workflows older than it (then `outputCapChars`). */
  storedOutputChars?: number;
  /** Which tools the session sees: a call to any other is refused. All when absent. */
  tools?: ToolFilter;
  /** For a `delegate` call: what became of it, for the result the parent reads. */
  delegated?: DelegationOutcome;
  /** The step's trace, for this call's span. */
  trace?: StepTrace;
  /**
   * Set on a call sent on the shared queue to the worker of the host that owns the workspace
   * (WorkspaceAffinity): a worker on any other host refuses it (`workspaceElsewhere`) before it
   * reads or runs anything. Absent on a host's own queue, and in histories from before it.
   */
  onlyOnHost?: string;
}

export interface RunToolResult {
  measure: MessageMeasure;
  toolName: string;
  isError: boolean;
  /** An error result's first line, capped to `ERROR_LINE_CHARS`; rows stored before it existed have none. */
  error?: string;
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
/** Enough of an error result for one terminal line; the whole text is in the store. */
export const ERROR_LINE_CHARS = 240;

/**
 * How often a long activity heartbeats, and the longest the worker holds a heartbeat back before
 * sending it (its throttle). Plain data here so the workflow's heartbeat timeouts and the worker's
 * throttle derive from it: they must never drift apart.
 */
export const HEARTBEAT_EVERY_MS = 1_500;

/** Failure types the activities raise as non-retryable `ApplicationFailure`s. */
export const ActivityFailureType = {
  /** The request exceeded the model's context window. */
  contextOverflow: 'ContextOverflow',
  /** The endpoint rejected the request (400-class) for another reason: retrying cannot help. */
  modelRequestRejected: 'ModelRequestRejected',
  /** The endpoint is unreachable, overloaded or answered garbage: retried with backoff. */
  modelUnavailable: 'ModelUnavailable',
  /**
   * The model's answer was not taken as a summary (empty, a refusal, not shorter than what it
   * replaces; `SummaryRejection`): non-retryable, since the same request would get the same answer.
   * Its details carry a `SummaryRejectedDetails`.
   */
  summaryRejected: 'SummaryRejected',
  /** A tool call meant for the workspace's host reached a worker on another host, which refused it untouched. */
  workspaceElsewhere: 'WorkspaceElsewhere',
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
  /** The tools the session's own requests list, so a summary request repeats them for the prompt cache. */
  tools?: ToolFilter;
  /** The step's trace, for this call's span. */
  trace?: StepTrace;
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
  /**
   * Where the session memory block is stored beside the summary (DESIGN §5 "Session memory");
   * absent in histories from before it existed.
   */
  memorySeq?: number;
  /** Largest memory block, in tokens (the plan reserved it). */
  memoryBudgetTokens?: number;
  /** Original seqs still in the context after this compaction (pinned and tail), for "what left". */
  kept?: SeqRun[];
  /**
   * Live seqs of the request to repeat, in order (settings `summaryRequest: 'continue'`): the
   * session's previous model request, holding `region`. The summary request sends it word for word,
   * then the instruction naming the region, so a provider's prompt cache serves all but the
   * instruction. Absent, or too big for the window: pinned messages, the region and the instruction.
   */
  request?: SeqRun[];
  /** A summary over `budgetTokens` is cut down to it without a model, instead of taken as it came. */
  trimToBudget?: boolean;
}

/**
 * A session memory block to build from the store and keep under `memorySeq`
 * (DESIGN §5 "Session memory"): beside a summary, or after a truncation dropped steps without one.
 */
export interface StoreSessionMemoryInput {
  sessionId: string;
  memorySeq: number;
  /** Pinned messages (system prompt, task): user messages after the last of them are quoted. */
  pinned: SeqRun[];
  /** Original seqs a summary in the context stands for. */
  summarized: SeqRun[];
  /** Original seqs still in the context; what is in neither list was dropped without a summary. */
  kept: SeqRun[];
  /** Largest block, in tokens (the plan reserved it). */
  budgetTokens: number;
}

/**
 * What one summarize attempt cost, returned with its result and carried as the first detail of any
 * failure after the endpoint answered (DESIGN §5 "Any model's summary counts"): rejected summaries
 * are billed too. A schema, because the workflow reads it back out of a failure's untyped details.
 */
const SummarizeSpentSchema = z.object({
  usage: ModelUsageSchema,
  /** Model calls the endpoint answered (more than one when the region was summarized in chunks). */
  calls: z.number().int().nonnegative(),
  /**
   * Requests an earlier attempt of this activity may have had answered and billed without its result
   * reaching us: 1 when this is a retry (attempt > 1) and no summary is stored yet, else 0. Their
   * tokens are unknown.
   */
  possiblyBilledCalls: z.number().int().nonnegative(),
});
export type SummarizeSpent = z.infer<typeof SummarizeSpentSchema>;

export interface SummarizeResult extends SummarizeSpent {
  measure: MessageMeasure;
  /** How the request was built: `continued` repeats the previous request; absent in results from before. */
  request?: SummaryRequestShape;
  /** Tokens the model answered, when the summary was cut down to its budget (`trimToBudget`). */
  trimmedFromTokens?: number;
  /** The session memory stored under `memorySeq`, when one was asked for. */
  memory?: MessageMeasure;
}

/** The details of a `SummaryRejected` failure. */
const SummaryRejectedDetailsSchema = SummarizeSpentSchema.extend({
  reason: z.enum(SummaryRejection),
});
export type SummaryRejectedDetails = z.infer<typeof SummaryRejectedDetailsSchema>;

/**
 * What a failed summarize attempt says about itself, read from the first detail of its failure:
 * what it cost (when the endpoint answered) and, for a rejection, why.
 */
export function summarizeFailureDetails(details: unknown): { spent?: SummarizeSpent; rejection?: SummaryRejection } {
  const rejected = SummaryRejectedDetailsSchema.safeParse(details);
  if (rejected.success) {
    const { reason, ...spent } = rejected.data;
    return { spent, rejection: reason };
  }
  const spent = SummarizeSpentSchema.safeParse(details);
  return spent.success ? { spent: spent.data } : {};
}
