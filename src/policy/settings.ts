/**
 * Compaction settings (DESIGN §5): frozen defaults, the zod schema a session input embeds, and the
 * resolver that derives the window-dependent numbers and rejects contradictions. Pure: no I/O.
 */
import { z } from 'zod';

/** The defaults of DESIGN §5; written for large windows, scaled down by the resolver on small ones. */
export const DEFAULT_COMPACTION_SETTINGS = Object.freeze({
  enabled: true,
  auto: true,
  reserveTokens: 16_384,
  tailTurns: 3,
  tailCapTokens: 16_384,
  pruneMinChars: 8_192,
  pruneHeadChars: 4_096,
  pruneTailChars: 1_024,
  pruneSkipSummaryRatio: 0.25,
  summaryMaxTokens: 8_192,
  summaryWindowShare: 0.1,
  memoryMaxTokens: 2_048,
  memoryWindowShare: 0.05,
  summaryRequest: 'continue',
  pruneOnlyWhenItPays: true,
  trimLongSummaries: true,
  mustLandAtTarget: true,
  oversizeShareOfWindow: 0.25,
  breakerThreshold: 3,
  breakerCoolDownSteps: 20,
  perMessageOverheadTokens: 4,
  minRoomTokens: 1_024,
});

/**
 * What a compaction aims at, as a share of the trigger, when the settings name none: half, so the
 * context lands with room (DESIGN §5 "Land with room"). Histories recorded before that rule aimed at
 * three quarters; the workflow says which applies, so their decisions replay unchanged.
 */
export const TARGET_SHARE_OF_TRIGGER = 0.5;
export const EARLIER_TARGET_SHARE_OF_TRIGGER = 0.75;

const D = DEFAULT_COMPACTION_SETTINGS;
const count = () => z.number().int().nonnegative();
const positive = () => z.number().int().positive();
/** A share in (0, max]: zero would disable the rule it sizes without saying so. */
const share = (max: number) => z.number().gt(0).max(max);

export const CompactionSettingsSchema = z
  .object({
    /**
     * false switches off every change agentd makes to the context — auto, manual and reactive
     * compaction, emergency truncation and oversized-result views — so requests grow until the
     * endpoint refuses one. For baselines and benchmarks, not for production. @default true
     */
    enabled: z.boolean().default(D.enabled),
    /** Compact automatically when the estimate reaches the trigger; manual compaction always works. @default true */
    auto: z.boolean().default(D.auto),
    /** Absolute room kept free below the window: trigger = contextWindow − reserveTokens. @default 16384 */
    reserveTokens: positive().default(D.reserveTokens),
    /** Newest turns kept verbatim, whole, when they fit the tail cap. @default 3 */
    tailTurns: positive().default(D.tailTurns),
    /** Upper bound of the verbatim tail; the resolver lowers it on small windows. @default 16384 */
    tailCapTokens: positive().default(D.tailCapTokens),
    /** Tool results older than the tail and longer than this are cut to a head-and-tail view. @default 8192 */
    pruneMinChars: positive().default(D.pruneMinChars),
    /** Characters a view keeps from the start of the result. @default 4096 */
    pruneHeadChars: count().default(D.pruneHeadChars),
    /** Characters a view keeps from the end of the result (where errors and totals usually are). @default 1024 */
    pruneTailChars: count().default(D.pruneTailChars),
    /** Pruning alone is enough when it reclaims this share of the transcript and gets under the trigger. @default 0.25 */
    pruneSkipSummaryRatio: share(1).default(D.pruneSkipSummaryRatio),
    /** Largest summary, in tokens (the summary call's output limit). @default 8192 */
    summaryMaxTokens: positive().default(D.summaryMaxTokens),
    /** Largest summary as a share of the window: budget = min(summaryMaxTokens, share × window). @default 0.1 */
    summaryWindowShare: share(0.5).default(D.summaryWindowShare),
    /**
     * Largest session memory block (user messages, artifact trail, what left the context), in tokens;
     * agentd builds it without a model at each summary compaction. @default 2048
     */
    memoryMaxTokens: positive().default(D.memoryMaxTokens),
    /** Largest session memory as a share of the window: budget = min(memoryMaxTokens, share × window). @default 0.05 */
    memoryWindowShare: share(0.25).default(D.memoryWindowShare),
    /**
     * A compaction aims at most at this share of the trigger, and one that does not get there counts
     * as a failure, so the context lands with room and the next compaction is many steps away.
     * Unset: TARGET_SHARE_OF_TRIGGER (0.5).
     */
    targetShareOfTrigger: share(1).optional(),
    /**
     * How the summary request is built. `continue`: the session's previous request word for word, then
     * one instruction naming the messages to summarize, so a provider's prompt cache serves all but the
     * instruction. `standalone`: pinned messages, the region and the instruction (the earlier request,
     * which shares only the pinned prefix with anything sent before). @default 'continue'
     */
    summaryRequest: z.enum(['continue', 'standalone']).default(D.summaryRequest),
    /**
     * Prune (rewrite old tool results in the middle of the conversation) only when the tokens it saves
     * over the steps until the next compaction outweigh the prompt cache it breaks; else leave them to
     * the next summary. @default true
     */
    pruneOnlyWhenItPays: z.boolean().default(D.pruneOnlyWhenItPays),
    /**
     * A summary over its budget (a model that ignores max_tokens) is cut to the budget without a model,
     * keeping its lines that name files, commands, errors, numbers and constraints. @default true
     */
    trimLongSummaries: z.boolean().default(D.trimLongSummaries),
    /**
     * A compaction that ends over the target counts as a failure for the breaker (not only one that
     * ends at or over the trigger), so a summarizer whose answers land near the trigger cannot make
     * the session compact step after step. @default true
     */
    mustLandAtTarget: z.boolean().default(D.mustLandAtTarget),
    /** A tool result over this share of the window is never put in the context whole. @default 0.25 */
    oversizeShareOfWindow: share(1).default(D.oversizeShareOfWindow),
    /** Consecutive failed compactions that stop auto-compaction. @default 3 */
    breakerThreshold: positive().default(D.breakerThreshold),
    /**
     * Steps an open breaker waits before one compaction is tried again (half-open); doubles after
     * each failed retry. @default 20
     */
    breakerCoolDownSteps: positive().default(D.breakerCoolDownSteps),
    /** Tokens each message costs beyond its content (role, separators) in the estimate. @default 4 */
    perMessageOverheadTokens: count().default(D.perMessageOverheadTokens),
    /** Room a request must leave for the answer; above window − minRoomTokens we truncate. @default 1024 */
    minRoomTokens: positive().default(D.minRoomTokens),
  })
  .strict()
  .superRefine((s, ctx) => {
    const view = s.pruneHeadChars + s.pruneTailChars;
    if (view >= s.pruneMinChars) {
      ctx.addIssue({
        code: 'custom',
        path: ['pruneMinChars'],
        message:
          `pruneHeadChars ${s.pruneHeadChars} + pruneTailChars ${s.pruneTailChars} = ${view} must be below ` +
          `pruneMinChars ${s.pruneMinChars}: a pruned result would not get shorter`,
      });
    }
    if (s.minRoomTokens > s.reserveTokens) {
      ctx.addIssue({
        code: 'custom',
        path: ['minRoomTokens'],
        message:
          `minRoomTokens ${s.minRoomTokens} exceeds reserveTokens ${s.reserveTokens}: emergency truncation ` +
          `would start before compaction is even tried`,
      });
    }
  });

/** Every field filled in. */
export type CompactionSettings = z.output<typeof CompactionSettingsSchema>;

/** Settings plus the numbers derived from the usable window; what `decide` takes. */
export interface ResolvedCompactionSettings extends CompactionSettings {
  /** The usable window (DESIGN §5), in tokens, these numbers were derived for. */
  readonly contextWindow: number;
  /** Auto-compaction starts when the estimate reaches this: contextWindow − reserveTokens. */
  readonly triggerTokens: number;
  /** Largest summary: min(summaryMaxTokens, summaryWindowShare × contextWindow). */
  readonly summaryBudgetTokens: number;
  /** Largest session memory block: min(memoryMaxTokens, memoryWindowShare × contextWindow). */
  readonly memoryBudgetTokens: number;
  /** What a compaction aims at, at most: targetShareOfTrigger × triggerTokens; one that lands over it fails. */
  readonly targetTokens: number;
  /** Above this a request leaves too little room to answer: contextWindow − minRoomTokens. */
  readonly hardLimitTokens: number;
  /** A single tool result above this is oversized: oversizeShareOfWindow × contextWindow. */
  readonly oversizeTokens: number;
}

/** One contradiction, naming the field the operator should change. */
export interface CompactionSettingsIssue {
  /** The setting to change (`contextWindow` when the window itself is the problem). */
  readonly field: string;
  /** What is wrong, with the values involved. */
  readonly message: string;
}

/** Closed set of settings error codes, so callers can map them to a non-retryable failure type. */
export const CompactionSettingsErrorCode = { invalid: 'InvalidCompactionSettings' } as const;
export type CompactionSettingsErrorCode = (typeof CompactionSettingsErrorCode)[keyof typeof CompactionSettingsErrorCode];

export class CompactionSettingsError extends Error {
  override readonly name = 'CompactionSettingsError';
  readonly code: CompactionSettingsErrorCode = CompactionSettingsErrorCode.invalid;
  constructor(readonly issues: readonly CompactionSettingsIssue[]) {
    super(`invalid compaction settings: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`);
  }
}

/**
 * Contradictions that only show against a window: on a small one the defaults could otherwise
 * leave compaction unable to get under its own trigger. Empty when the settings fit the window.
 */
export function compactionSettingsIssues(contextWindow: number, s: CompactionSettings, rules: SettingsRules = {}): CompactionSettingsIssue[] {
  if (!Number.isInteger(contextWindow) || contextWindow <= 0) {
    return [{ field: 'contextWindow', message: `contextWindow ${contextWindow} must be a positive integer of tokens` }];
  }
  const issues: CompactionSettingsIssue[] = [];
  if (s.reserveTokens * 2 > contextWindow) {
    const highest = Math.floor(contextWindow / 2);
    // The reserve may not go below minRoomTokens either: on a tiny window no reserve fits, and
    // suggesting one would only trade this error for the next.
    const fix =
      highest >= s.minRoomTokens
        ? `lower reserveTokens to between ${s.minRoomTokens} (minRoomTokens) and ${highest}, or declare a larger window`
        : `no reserveTokens fits a window this small (it must be at least minRoomTokens ${s.minRoomTokens} and at most half ` +
          `the window): declare a contextWindow of at least ${2 * s.minRoomTokens}`;
    issues.push({
      field: 'reserveTokens',
      message: `reserveTokens ${s.reserveTokens} is more than half of contextWindow ${contextWindow}: ${fix}`,
    });
    // The derived numbers below are meaningless without a sane trigger.
    return issues;
  }
  const derived = derive(contextWindow, s, rules);
  if (derived.summaryBudgetTokens >= derived.targetTokens) {
    issues.push({
      field: 'summaryMaxTokens',
      message:
        `summary budget ${derived.summaryBudgetTokens} (summaryMaxTokens ${s.summaryMaxTokens}, ` +
        `summaryWindowShare ${s.summaryWindowShare}) is not below the compaction target ${derived.targetTokens}`,
    });
  } else if (derived.summaryBudgetTokens + derived.memoryBudgetTokens >= derived.targetTokens) {
    issues.push({
      field: 'memoryMaxTokens',
      message:
        `summary budget ${derived.summaryBudgetTokens} + memory budget ${derived.memoryBudgetTokens} (memoryMaxTokens ` +
        `${s.memoryMaxTokens}, memoryWindowShare ${s.memoryWindowShare}) is not below the compaction target ${derived.targetTokens}`,
    });
  }
  if (derived.oversizeTokens >= derived.triggerTokens) {
    issues.push({
      field: 'oversizeShareOfWindow',
      message:
        `oversizeShareOfWindow ${s.oversizeShareOfWindow} × contextWindow ${contextWindow} = ${derived.oversizeTokens} ` +
        `is not below the trigger ${derived.triggerTokens}: one tool result could fill the context alone`,
    });
  }
  return issues;
}

/**
 * Parses `partial` (unknown input is fine: the schema checks it), derives the window-dependent
 * numbers and returns them frozen. Throws `CompactionSettingsError` naming each bad field and value:
 * this runs once before a session starts, where an exception is the clear answer.
 */
export function resolveCompactionSettings(contextWindow: number, partial: unknown = {}, rules: SettingsRules = {}): ResolvedCompactionSettings {
  const parsed = CompactionSettingsSchema.safeParse(partial ?? {});
  if (!parsed.success) {
    throw new CompactionSettingsError(
      parsed.error.issues.map((issue) => ({
        field: issue.path.length > 0 ? issue.path.join('.') : '(settings)',
        message: issue.message,
      })),
    );
  }
  const issues = compactionSettingsIssues(contextWindow, parsed.data, rules);
  if (issues.length > 0) throw new CompactionSettingsError(issues);
  return Object.freeze({ ...parsed.data, ...derive(contextWindow, parsed.data, rules) });
}

/** Which rules a session's history was recorded under (the workflow's `patched()`); all current by default. */
export interface SettingsRules {
  /** False for histories from before DESIGN §5 "Land with room": an unset target is the earlier 0.75. */
  readonly landWithRoom?: boolean;
}

function derive(contextWindow: number, s: CompactionSettings, rules: SettingsRules) {
  const triggerTokens = contextWindow - s.reserveTokens;
  const targetShare = s.targetShareOfTrigger ?? (rules.landWithRoom === false ? EARLIER_TARGET_SHARE_OF_TRIGGER : TARGET_SHARE_OF_TRIGGER);
  return {
    contextWindow,
    triggerTokens,
    summaryBudgetTokens: Math.min(s.summaryMaxTokens, Math.floor(s.summaryWindowShare * contextWindow)),
    memoryBudgetTokens: Math.min(s.memoryMaxTokens, Math.floor(s.memoryWindowShare * contextWindow)),
    targetTokens: Math.floor(targetShare * triggerTokens),
    hardLimitTokens: contextWindow - s.minRoomTokens,
    oversizeTokens: Math.floor(s.oversizeShareOfWindow * contextWindow),
  };
}
