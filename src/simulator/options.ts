/** Simulator settings: one zod schema with defaults, plus the test hooks (fault plan, summary fault) beside it. */
import { z } from 'zod';
import type { RequestObserver } from './observer';

/** seq prints integers plainly up to here; also keeps one tool output far below any sane cap. */
export const MAX_OUTPUT_BYTES = 10_000_000;

export const ByteRangeSchema = z
  .strictObject({
    min: z.number().int().min(1).max(MAX_OUTPUT_BYTES),
    max: z.number().int().min(1).max(MAX_OUTPUT_BYTES),
  })
  .refine((range) => range.min <= range.max, { message: 'min must not exceed max', path: ['max'] });
export type ByteRange = z.infer<typeof ByteRangeSchema>;

export const SimulatorOptionsSchema = z.strictObject({
  /** 0 picks a free port, which is what tests want so they can run side by side. */
  port: z.number().int().min(0).max(65_535).default(0),
  /** Prompts counted above this many tokens are rejected with context_length_exceeded. */
  contextWindow: z.number().int().positive().default(128_000),
  /** The only model id the endpoint accepts, like a real account with one model. */
  model: z.string().min(1).default('agentd-sim'),
  /** Steps of the first turn when the task carries no `[sim steps=N]` directive. */
  defaultSteps: z.number().int().min(0).default(24),
  /** Steps of a later turn whose user message carries no directive. */
  followUpSteps: z.number().int().min(0).default(2),
  /** Size of the run_command output the script asks for, picked per step inside this range. */
  outputBytes: ByteRangeSchema.default({ min: 2000, max: 8000 }),
  /** Planted in run_command output so tests can check the agent's claims against real output. */
  marker: z
    .string()
    .regex(/^[^\r\n']+$/, 'marker must be one line without single quotes')
    .optional(),
  /** Added before every chat completion answer, to make timing-sensitive code visible. */
  latencyMs: z.number().int().min(0).default(0),
});

/** What one request is made to suffer; kept small so each fault maps to one real failure mode. */
export type Fault =
  | { readonly kind: 'status'; readonly status: 429 | 500 | 503; readonly retryAfterSeconds?: number }
  /** Accept the request and never answer: the client's own timeout must fire. */
  | { readonly kind: 'hang' }
  /** 200 with a body that is not JSON, like a proxy cutting a response short. */
  | { readonly kind: 'malformed' }
  /** Answer normally, this much later. */
  | { readonly kind: 'latency'; readonly ms: number };

/**
 * Chooses a fault for the chat completion request with this 0-based index, counted since the
 * simulator started (reset-stats does not reset it, so a plan stays put while stats are sliced).
 */
export type FaultPlan = (requestIndex: number) => Fault | undefined;

/**
 * How the scripted summarizer misbehaves, so tests can see compaction survive a bad summary:
 * `fail` answers summarization requests with a 500 (an injected fault; other requests are served),
 * `garbage` answers text without the summary's sections, `long` answers a summary longer than its input.
 */
export const SummaryFault = { fail: 'fail', garbage: 'garbage', long: 'long' } as const;
export type SummaryFault = (typeof SummaryFault)[keyof typeof SummaryFault];

/** The options that are not data (a function) or are meant for tests only, kept out of the schema. */
export interface SimulatorTestHooks {
  readonly faultPlan?: FaultPlan;
  readonly summaryFault?: SummaryFault;
  readonly observe?: RequestObserver;
}

export type SimulatorOptions = z.input<typeof SimulatorOptionsSchema> & SimulatorTestHooks;
export type ResolvedSimulatorOptions = z.output<typeof SimulatorOptionsSchema> & SimulatorTestHooks;

/** Fills defaults and rejects bad values with one readable message naming the fields. */
export function resolveSimulatorOptions(options: SimulatorOptions = {}): ResolvedSimulatorOptions {
  const { faultPlan, summaryFault, observe, ...settings } = options;
  const parsed = SimulatorOptionsSchema.safeParse(settings);
  if (!parsed.success) throw new RangeError(`invalid simulator options: ${z.prettifyError(parsed.error)}`);
  // Checked here too: callers from plain JavaScript (or JSON config) bypass the type.
  if (summaryFault !== undefined && !Object.values<string>(SummaryFault).includes(summaryFault)) {
    throw new RangeError(
      `invalid simulator options: summaryFault must be one of ${Object.values(SummaryFault).join(', ')}, not ${JSON.stringify(summaryFault)}`,
    );
  }
  return {
    ...parsed.data,
    ...(faultPlan === undefined ? {} : { faultPlan }),
    ...(summaryFault === undefined ? {} : { summaryFault }),
    ...(observe === undefined ? {} : { observe }),
  };
}

/** A plan from a table of request index → fault; indexes not listed are served normally. */
export function faultsAt(table: Readonly<Record<number, Fault>>): FaultPlan {
  return (requestIndex) => table[requestIndex];
}
