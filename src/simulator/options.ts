/** Simulator settings: one zod schema with defaults, plus the test hooks (fault plan, observer) beside it. */
import { z } from 'zod';
import type { RequestObserver } from './observer';

/** seq prints integers plainly up to here; also keeps one tool output far below any sane cap. */
const MAX_OUTPUT_BYTES = 10_000_000;

const ByteRangeSchema = z
  .strictObject({
    min: z.number().int().min(1).max(MAX_OUTPUT_BYTES),
    max: z.number().int().min(1).max(MAX_OUTPUT_BYTES),
  })
  .refine((range) => range.min <= range.max, { message: 'min must not exceed max', path: ['max'] });
export type ByteRange = z.infer<typeof ByteRangeSchema>;

/**
 * How the scripted summarizer answers a summarization request, so compaction is tested against
 * models that do not do as asked (DESIGN §5). Each summarizes the messages the instruction's range
 * names (all above it when it names none), and stops at max_tokens unless said otherwise:
 * - `sectioned` writes exactly the sections the instruction asks for (the default);
 * - `prose` writes the same facts as free paragraphs, without a heading;
 * - `headings` writes them under headings of its own choosing (the model's own structure);
 * - `lossy` keeps one paragraph: the goal and where the work stands, no constraints, no files;
 * - `halfFacts` writes the sections but keeps about half of the constraints and files (by a hash of each);
 * - `json` writes the facts as one JSON object, no Markdown (a model asked for structured output);
 * - `long` writes a summary longer than its input (the whole input, twice), ignoring max_tokens;
 * - `verbose` writes 60–80% of its input's tokens (every fact, then excerpts), ignoring max_tokens;
 * - `empty` answers an empty string;
 * - `refusal` answers "I'm sorry, but I can't help with that.";
 * - `fail` answers 500 (an injected fault; the session's other requests are served).
 */
export const SummarizerBehaviour = {
  sectioned: 'sectioned',
  prose: 'prose',
  headings: 'headings',
  lossy: 'lossy',
  halfFacts: 'halfFacts',
  json: 'json',
  long: 'long',
  verbose: 'verbose',
  empty: 'empty',
  refusal: 'refusal',
  fail: 'fail',
} as const;
export type SummarizerBehaviour = (typeof SummarizerBehaviour)[keyof typeof SummarizerBehaviour];
export const SUMMARIZER_BEHAVIOURS = Object.values(SummarizerBehaviour);

/** Picks the behaviour of every simulator that is not given one, so a whole test run can be repeated under each. */
export const SUMMARIZER_ENV = 'AGENTD_SIM_SUMMARIZER';

export function isSummarizerBehaviour(value: string): value is SummarizerBehaviour {
  return (SUMMARIZER_BEHAVIOURS as readonly string[]).includes(value);
}

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
  /**
   * How summarization requests are answered; a task's `[sim summarizer=NAME]` directive overrides
   * it for its session. Unset: the AGENTD_SIM_SUMMARIZER environment variable, else `sectioned`.
   */
  summarizer: z.enum(SummarizerBehaviour).optional(),
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

/** The options that are not data (a function) or are meant for tests only, kept out of the schema. */
interface SimulatorTestHooks {
  readonly faultPlan?: FaultPlan;
  readonly observe?: RequestObserver;
}

export type SimulatorOptions = z.input<typeof SimulatorOptionsSchema> & SimulatorTestHooks;
export type ResolvedSimulatorOptions = z.output<typeof SimulatorOptionsSchema> & SimulatorTestHooks & {
  readonly summarizer: SummarizerBehaviour;
};

/**
 * Fills defaults and rejects bad values with one readable message naming the fields; `env` is read
 * for the summarizer when the options leave it unset.
 */
export function resolveSimulatorOptions(options: SimulatorOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedSimulatorOptions {
  const { faultPlan, observe, ...settings } = options;
  const parsed = SimulatorOptionsSchema.safeParse(settings);
  if (!parsed.success) throw new RangeError(`invalid simulator options: ${z.prettifyError(parsed.error)}`);
  return {
    ...parsed.data,
    summarizer: parsed.data.summarizer ?? summarizerFromEnv(env),
    ...(faultPlan === undefined ? {} : { faultPlan }),
    ...(observe === undefined ? {} : { observe }),
  };
}

/** The behaviour AGENTD_SIM_SUMMARIZER names; a typo fails loudly rather than testing the default twice. */
function summarizerFromEnv(env: NodeJS.ProcessEnv): SummarizerBehaviour {
  const value = env[SUMMARIZER_ENV];
  if (value === undefined || value === '') return SummarizerBehaviour.sectioned;
  if (!isSummarizerBehaviour(value)) {
    throw new RangeError(`invalid ${SUMMARIZER_ENV}: must be one of ${SUMMARIZER_BEHAVIOURS.join(', ')}, not ${JSON.stringify(value)}`);
  }
  return value;
}

/** A plan from a table of request index → fault; indexes not listed are served normally. */
export function faultsAt(table: Readonly<Record<number, Fault>>): FaultPlan {
  return (requestIndex) => table[requestIndex];
}
