/**
 * The shapes `decide` returns and `applyCompaction` consumes: a discriminated union on `kind`, plain
 * JSON (it may be logged, carried or sent to activities). Pure types and `as const` sets only.
 */
import type { BreakerState } from './breaker';
import type { CachePrices } from './cacheCost';
import type { EstimateInput } from './estimate';
import type { LedgerEntry } from './ledger';
import type { SeqRun } from './seqRuns';
import type { ResolvedCompactionSettings } from './settings';
import type { ViewCut } from './viewSize';

/** Who asks for a decision. */
export const CompactionRequest = {
  /** Before every model call: compact only at the trigger, only while the breaker is closed. */
  auto: 'auto',
  /** The `compact` signal or `compactNow` update: compacts even under the trigger, also with the breaker open. */
  manual: 'manual',
  /** The model answered `context_length_exceeded`: our estimate was wrong, compact now. */
  reactive: 'reactive',
} as const;
export type CompactionRequest = (typeof CompactionRequest)[keyof typeof CompactionRequest];

/** Why a decision is `none`. */
export const NoneReason = {
  /** The estimate is under the trigger (auto). */
  underTrigger: 'under_trigger',
  /** Compaction is switched off entirely (`enabled: false`): the context is never changed. */
  disabled: 'disabled',
  /** Auto-compaction is switched off and the request still fits. */
  autoOff: 'auto_off',
  /** The breaker is open and the request still fits. */
  breakerOpen: 'breaker_open',
  /** Nothing is older than the tail and nothing can be cut, and the request still fits. */
  nothingToCompact: 'nothing_to_compact',
  /** A truncation was asked for, but the request already leaves `minRoomTokens` for the answer. */
  withinLimit: 'within_limit',
  /** Truncation was needed but only pinned entries and the newest step are left. */
  nothingToDrop: 'nothing_to_drop',
} as const;
export type NoneReason = (typeof NoneReason)[keyof typeof NoneReason];

/** How a compaction shrinks the context. */
export const CompactionStrategy = {
  /** Model-free: tool results become head-and-tail views, the older region stays. */
  prune: 'prune',
  /** The older region (and any previous summary) becomes one summary written by the session's model. */
  summary: 'summary',
} as const;
export type CompactionStrategy = (typeof CompactionStrategy)[keyof typeof CompactionStrategy];

/** What made a truncation necessary (the decision's `cause`). */
export const TruncationCause = {
  /** Over the hard limit and the breaker is open (or a reactive request met an open breaker). */
  breakerOpen: 'breaker_open',
  /** Over the hard limit, auto-compaction is off. */
  autoOff: 'auto_off',
  /** Over the hard limit and compaction has nothing to work on, or a reactive compaction could not help. */
  cannotCompact: 'cannot_compact',
  /** The workflow asked directly: the model overflowed again right after a reactive compaction. */
  repeatedOverflow: 'repeated_overflow',
  /**
   * The workflow asked directly: the compaction after an overflow failed, so the refused request
   * would go out again unchanged unless steps are dropped.
   */
  reactiveCompactionFailed: 'reactive_compaction_failed',
} as const;
export type TruncationCause = (typeof TruncationCause)[keyof typeof TruncationCause];

/** Why a compaction's expected result is not under the trigger. */
export const ShortfallReason = {
  /** Pinned messages, tool schemas and the summary budget alone reach the trigger. */
  pinnedOverBudget: 'pinned_over_budget',
  /** The newest step is over the tail cap even with its tool results cut (large assistant message). */
  stepOverCap: 'step_over_cap',
  /** Only pruning was possible (the older region is just a summary) and it is not enough. */
  olderKept: 'older_kept',
  /** The server measured more than our counts by enough to keep the projection over the trigger. */
  estimateExcess: 'estimate_excess',
} as const;
export type ShortfallReason = (typeof ShortfallReason)[keyof typeof ShortfallReason];

/** Why a truncation does not get under its goal. */
export const TruncationShortfallReason = {
  /** Only pinned entries, the summary and memory, and the newest step are left, and they alone are over the goal. */
  onlyKeptLeft: 'only_kept_left',
} as const;
export type TruncationShortfallReason = (typeof TruncationShortfallReason)[keyof typeof TruncationShortfallReason];

/** Numbers `decide` projected with; `applyCompaction` projects the same way, so events match decisions. */
export interface ProjectionBasis {
  /** Calibration ratio used (server / ours). */
  readonly calibration: number;
  /** Per-message overhead in our tokens. */
  readonly perMessageOverheadTokens: number;
  /** Tool schema tokens (ours). */
  readonly toolSchemaTokens: number;
  /** Server excess over our counts carried into projections (see `ContextEstimate.excessTokens`). */
  readonly excessTokens: number;
}

/** Inputs of `decide`. */
export interface DecideInput {
  /** The live context, in order: pinned entries first, then any summary, then steps. */
  readonly ledger: readonly LedgerEntry[];
  /** From `resolveCompactionSettings`; carries the window, so there is one source for it. */
  readonly settings: ResolvedCompactionSettings;
  /** Anchor, calibration and tool-schema tokens. */
  readonly estimateInput: EstimateInput;
  /** Breaker state from the session. */
  readonly breaker: BreakerState;
  readonly request: CompactionRequest;
  /** The session's step: an open breaker half-opens once its `retryAtStep` is reached. */
  readonly step?: number;
  /**
   * The rules of DESIGN §5 "Degrading gracefully" and honest projections: with the breaker open,
   * prune, then truncate to the target (not the hard limit); skip a summary only when pruning gets
   * under the target; project the summary with its header; never start a summary that cannot
   * shrink the context. False for histories recorded before them (the workflow's `patched()`).
   */
  readonly graceful?: boolean;
  /**
   * A kept step over the cap may have its long tool-call arguments cut to views, not only its tool
   * results; false only to replay histories from before such views. @default true
   */
  readonly cutToolCalls?: boolean;
  /**
   * A truncation also rebuilds the session memory (DESIGN §5 "Session memory"), so it aims that much
   * lower; false for histories recorded before (the workflow's `patched()`).
   */
  readonly memoryAtTruncation?: boolean;
  /**
   * The rules of DESIGN §5 "Land with room" and "Prune only when it pays": a compaction must land at
   * the target; pruning is weighed against a summary in prompt-cache terms; an open breaker's retry
   * runs at its step, under the trigger too. False for histories recorded before them.
   */
  readonly landWithRoom?: boolean;
  /** Prices relative to an uncached input token, for weighing pruning; TYPICAL_CACHE_PRICES when absent. */
  readonly prices?: CachePrices;
  /**
   * A truncation never drops the summary or the session memory, only the oldest kept steps
   * (DESIGN §5 "Session memory"); false for histories recorded before, where they went last (the
   * workflow's `patched()`).
   */
  readonly truncationKeepsRecords?: boolean;
}

/** Nothing to do: a value, never an exception. */
export interface NoneDecision {
  readonly kind: 'none';
  /** Why nothing is done. */
  readonly reason: NoneReason;
  /** The current estimate (server tokens). */
  readonly estimate: number;
}

/** Run a compaction: prune activity, summary activity (strategy `summary`), then `applyCompaction`. */
export interface CompactDecision {
  readonly kind: 'compact';
  readonly requestedBy: CompactionRequest;
  /** Prune only, or summarize the older region. */
  readonly strategy: CompactionStrategy;
  /** Pinned seqs, kept first and unchanged. */
  readonly pinned: number[];
  /**
   * Older tool results to replace with views (strategy `prune` only: a summary replaces the whole
   * older region, so pruning it first would only cost a store write).
   */
  readonly prune: ViewCut[];
  /** Live seqs the summary replaces, in ledger order, a previous summary included (strategy `summary`; else empty). */
  readonly summarize: SeqRun[];
  /** Original seqs the new summary will cover (ascending runs): what its ledger entry records. */
  readonly covers: SeqRun[];
  /** Output limit of the summary call, in server tokens. */
  readonly summaryBudgetTokens: number;
  /** A previous session memory the new one replaces (strategy `summary`; else empty). */
  readonly replacedMemory: SeqRun[];
  /**
   * Largest session memory block the summary compaction stores beside the summary, in server tokens
   * (strategy `summary`; else 0). The projection counts it in full.
   */
  readonly memoryBudgetTokens: number;
  /** Live seqs kept after the older region, in ledger order. */
  readonly tail: number[];
  /** Tail tool results and tool calls (their long arguments) to replace with views so the tail fits its cap. */
  readonly tailCuts: ViewCut[];
  /** The tail cap the tail was chosen under (our tokens). */
  readonly tailCapTokens: number;
  /** Estimate before (server tokens). */
  readonly estimateBefore: number;
  /** Projected estimate after, if every view and the summary come out at their expected size. */
  readonly expectedAfter: number;
  /** What a compaction aims at, at most. */
  readonly target: number;
  /** The trigger the result is verified against. */
  readonly trigger: number;
  /** Present when `expectedAfter` is over where it must land (`landAt`, else under the trigger): why. */
  readonly shortfall?: { readonly reason: ShortfallReason; readonly overByTokens: number };
  /**
   * Where the result must land to count as a success (DESIGN §5 "Land with room"): the target.
   * Absent in decisions from before that rule, which only had to get under the trigger.
   */
  readonly landAt?: number;
  /** Why this strategy, in prompt-cache terms, when pruning and a summary were weighed. */
  readonly economics?: CacheEconomics;
  /** Numbers the projection used. */
  readonly projection: ProjectionBasis;
}

/**
 * A compaction's prompt-cache account (server tokens; costs in uncached input tokens): what the next
 * request sends uncached, what the context loses, how long until the next compaction, the cost per
 * step of the strategy taken and, when both were weighed, of each.
 */
export interface CacheEconomics {
  readonly rewrittenTokens: number;
  readonly savedTokens: number;
  readonly stepsToNextCompaction: number;
  readonly costPerStep: number;
  readonly pruneCostPerStep?: number;
  readonly summaryCostPerStep?: number;
}

/** Drop the oldest whole steps without a model (then `applyTruncation`). */
export interface TruncateDecision {
  readonly kind: 'truncate';
  readonly requestedBy: CompactionRequest;
  /** Why compaction could not be used. */
  readonly cause: TruncationCause;
  /** Live seqs to drop, in ledger order. */
  readonly drop: SeqRun[];
  /** Original seqs they stand for: the truncation event lists them. */
  readonly droppedOriginals: SeqRun[];
  /** Estimate before (server tokens). */
  readonly estimateBefore: number;
  /** Projected estimate after. */
  readonly expectedAfter: number;
  /** The estimate truncation aimed at. */
  readonly goal: number;
  /** Present when `expectedAfter` is over the goal: why not. */
  readonly shortfall?: { readonly reason: TruncationShortfallReason; readonly overByTokens: number };
  /**
   * Largest session memory the workflow stores once the steps are gone, replacing any earlier one;
   * the goal left room for it. Absent (or 0): no memory (histories from before it).
   */
  readonly memoryBudgetTokens?: number;
  /** Numbers the projection used. */
  readonly projection: ProjectionBasis;
}

export type Decision = NoneDecision | CompactDecision | TruncateDecision;
