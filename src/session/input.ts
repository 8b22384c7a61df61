/**
 * The session input: one zod schema, validated at the client before start and again in the workflow.
 * Pure (no I/O), so the workflow bundle can import it.
 */
import { z } from 'zod';
import { DEFAULT_MAX_REPEATED_TOOL_CALLS } from '../policy/budget';
import { DelegatedBySchema, DelegationSettingsSchema } from '../policy/delegation';
import { compactionSettingsIssues, CompactionSettingsSchema } from '../policy/settings';
import { PriceSchema } from '../policy/spend';
import { describeZodError } from './validation';

export const DEFAULT_SYSTEM_PROMPT = [
  'You are an autonomous software agent working alone in a workspace folder; nobody will answer questions.',
  'Use the tools to inspect and change files and to run commands. Keep going until the task is done,',
  'then call the `finish` tool with a short account of what you did.',
].join(' ');

export const SessionInputSchema = z
  .object({
    /** What the agent is asked to do; the first user message, pinned for the whole session. */
    task: z.string().trim().min(1, 'must not be empty'),
    systemPrompt: z.string().min(1).default(DEFAULT_SYSTEM_PROMPT),
    /** Model name as the worker's OpenAI-compatible endpoint knows it. */
    model: z.string().trim().min(1, 'must not be empty'),
    /** The usable window in tokens (not always the advertised one). Resolved before start. */
    contextWindow: z.number().int().min(1024).max(10_000_000),
    /** Steps (model calls) before the session pauses for approval. @default 200 */
    maxSteps: z.number().int().positive().default(200),
    /** Prompt plus completion tokens of every call, summaries included, before the session pauses. */
    maxTotalTokens: z.number().int().positive().optional(),
    /** Spend in USD (from `prices`) before the session pauses; needs a price. */
    maxCostUsd: z.number().positive().optional(),
    /** The same tool with the same arguments this many times in a row pauses the session. @default 4 */
    maxRepeatedToolCalls: z.number().int().min(2).default(DEFAULT_MAX_REPEATED_TOOL_CALLS),
    /**
     * How long a session paused by a budget guard waits for update `approve` before it ends
     * (outcome `step_limit` or `budget_exhausted`); 0 ends it at once without pausing. @default 86400
     */
    approvalTimeoutSeconds: z.number().int().min(0).max(30 * 24 * 3600).default(24 * 3600),
    /** USD per million tokens for the cost in the spend ledger; filled at the client for models it knows. */
    prices: PriceSchema.optional(),
    /** @default 10 */
    maxTurns: z.number().int().positive().default(10),
    /** How long a session whose turn ended waits for a `message` signal before completing. @default 0 */
    awaitMessagesSeconds: z.number().int().min(0).max(30 * 24 * 3600).default(0),
    /**
     * How long the host that owns the session's workspace may take no tool call before the session
     * moves to a fresh workspace on another host. @default 300
     */
    workspaceFailoverSeconds: z.number().int().positive().max(7 * 24 * 3600).default(300),
    /** @default 120 */
    toolTimeoutSeconds: z.number().int().positive().max(3600).default(120),
    /** Longest page one paging tool call (read_file, read_output) returns. @default 200000 */
    toolOutputCapChars: z.number().int().min(1000).default(200_000),
    /**
     * Longest tool output stored whole (a command's, an MCP tool's); longer output keeps its head and
     * tail. Output too large for the window enters the context as a view that read_output pages.
     * @default 10000000
     */
    toolOutputStoredChars: z.number().int().min(1000).max(100_000_000).default(10_000_000),
    maxOutputTokens: z.number().int().positive().optional(),
    /**
     * Tool calls of one model reply that run; the reply's further calls are dropped and the model is told.
     * Far below Temporal's 2,000 pending activities a workflow may have. @default 32
     */
    maxToolCallsPerReply: z.number().int().min(1).max(500).default(32),
    /** Retries of a model call that hit a 429, a 5xx, a timeout or an unreadable answer. */
    modelRetry: z
      .object({
        /** @default 10 */
        maximumAttempts: z.number().int().min(1).max(100).default(10),
        /** Longest wait between attempts, unless the endpoint's Retry-After asks for more. @default 120 */
        maximumIntervalSeconds: z.number().int().min(1).max(3600).default(120),
      })
      .strict()
      .default({ maximumAttempts: 10, maximumIntervalSeconds: 120 }),
    /** When a run's history is this big, the session goes on in a new run (continue-as-new). */
    continueAsNew: z
      .object({
        /** @default 10000 */
        maxHistoryEvents: z.number().int().min(100).default(10_000),
        /** @default 20 MiB */
        maxHistoryBytes: z.number().int().min(100_000).default(20 * 1024 * 1024),
      })
      .strict()
      .default({ maxHistoryEvents: 10_000, maxHistoryBytes: 20 * 1024 * 1024 }),
    /** The tools this session may call, by name; all of the worker's when absent. */
    tools: z.array(z.string().min(1)).min(1).optional(),
    /** Whether and how far the session may hand sub-tasks to child sessions (DESIGN §3 "Delegation"). */
    delegation: DelegationSettingsSchema.default(DelegationSettingsSchema.parse({})),
    /** Set on a child session by the parent that started it. */
    delegatedBy: DelegatedBySchema.optional(),
    /** Compaction rules (DESIGN §5); every number has a default and may be overridden per session. */
    compaction: CompactionSettingsSchema.default(CompactionSettingsSchema.parse({})),
  })
  .strict()
  .superRefine((input, context) => {
    // Defaults written for large windows must not contradict each other on a small one.
    for (const issue of compactionSettingsIssues(input.contextWindow, input.compaction)) {
      const path = issue.field === 'contextWindow' ? ['contextWindow'] : ['compaction', issue.field];
      context.addIssue({ code: 'custom', path, message: issue.message });
    }
    if (input.maxCostUsd !== undefined && input.prices === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['prices'],
        message: `maxCostUsd needs a price for model '${input.model}' (give prices: { inputPerMillion, outputPerMillion })`,
      });
    }
  });

/** What a caller writes: every defaulted field may be left out. */
export type SessionInputDraft = z.input<typeof SessionInputSchema>;
export type SessionInput = z.output<typeof SessionInputSchema>;

export const InvalidSessionInput = 'InvalidSessionInput';

export class SessionInputError extends Error {
  override readonly name = 'SessionInputError';
  readonly code = InvalidSessionInput;
}

/** Validates a session input; the error names every bad field. */
export function parseSessionInput(raw: unknown): SessionInput {
  const result = SessionInputSchema.safeParse(raw);
  if (!result.success) {
    throw new SessionInputError(`invalid session input: ${describeZodError(result.error)}`, { cause: result.error });
  }
  return result.data;
}
