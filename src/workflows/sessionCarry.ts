/**
 * The state of one run of a session as one plain-JSON object. Each part of the workflow keeps its
 * own slice of it and changes it in place, so continue-as-new hands the whole object to the next
 * run as it is (DESIGN §6): numbers, ids and short texts, never message bodies. Arrays and records
 * only: a Map would silently become `{}`.
 */
import type { WorkspaceClaim } from '../activities/types';
import {
  CLOSED_BREAKER,
  NO_REPEAT,
  NO_SPEND,
  type BreakerState,
  type BudgetLimits,
  type CallSpend,
  type LedgerEntry,
  type RepeatRun,
  type SeqRun,
  type UsageAnchor,
} from '../policy';
import type { SessionInput } from '../session/input';
import type { ChildSessionReport, CompactionNotice, ToolCallRecord, UsageTotals } from '../session/state';

export type StrategyCounts = Record<CompactionNotice['strategy'], number>;

/**
 * A compaction notice as the carry keeps it: its spend as counted. The cache's share of it is
 * worked out from the counts when the notice is shown (`CompactionRecord`), not carried beside them.
 * Carries from before this hold the shares too; showing them works them out again.
 */
export type CarriedNotice = Omit<CompactionNotice, 'spend'> & { spend?: CallSpend };

/** What the compaction controller keeps between model calls: breaker, anchor, calibration, record. */
export interface CompactionCarry {
  breaker: BreakerState;
  anchor?: UsageAnchor;
  calibration: number;
  toolSchemaTokens: number;
  /** Compactions done, by strategy. Carries from before this name call it `done`. */
  byStrategy: StrategyCounts;
  noticesTotal: number;
  /** The newest notices, oldest first. */
  notices: CarriedNotice[];
  /**
   * Live seqs the newest answered model request sent, in order: a summary request repeats them so
   * the provider's prompt cache serves it (DESIGN §5). Absent before the first answer.
   */
  lastRequest?: SeqRun[];
}

export interface BudgetCarry {
  /** The limits in force: the input's, raised by approvals. */
  limits: BudgetLimits;
  agentSpend: CallSpend;
  summarySpend: CallSpend;
  /** The run of identical tool calls the repeated-call guard watches. */
  repeat: RepeatRun;
  approvals: number;
  /** What ended children spent, rolled up; absent before the first child ended. */
  delegateSpend?: CallSpend;
}

export interface DelegationCarry {
  /** Children started so far, in all. */
  started: number;
  /** The token and cost limits of children still running: not the parent's to give again. */
  held: { tokens: number; costUsd: number };
  /** The newest children, oldest first. */
  children: ChildSessionReport[];
}

export interface AffinityCarry {
  claim?: WorkspaceClaim;
  failovers: number;
}

export interface SessionCarry {
  /** Runs of this session so far, this one included. */
  runs: number;
  /** The live context, in order. */
  ledger: LedgerEntry[];
  nextSeq: number;
  turn: number;
  step: number;
  turnOpen: boolean;
  pendingMessages: string[];
  /** Messages sent with `now` while a turn was open: stored before its next model call. */
  steeringMessages: string[];
  /** Set by an interrupt without `continue`: the session waits for a message however long it takes. */
  heldForMessage?: boolean;
  usage: UsageTotals;
  lastToolCalls: ToolCallRecord[];
  warnings: string[];
  answer?: { text: string; seq?: number };
  /** A `compact` signal or `compactNow` update not yet served. */
  manualRequested: boolean;
  compaction: CompactionCarry;
  affinity: AffinityCarry;
  budget: BudgetCarry;
  delegation: DelegationCarry;
}

/** The state of a session's first run, before its task is stored. */
export function firstRunCarry(input: SessionInput): SessionCarry {
  return {
    runs: 1,
    ledger: [],
    nextSeq: 0,
    turn: 0,
    step: 0,
    turnOpen: false,
    pendingMessages: [],
    steeringMessages: [],
    usage: { modelCalls: 0, promptTokens: 0, completionTokens: 0 },
    lastToolCalls: [],
    warnings: [],
    manualRequested: false,
    compaction: {
      breaker: { ...CLOSED_BREAKER },
      calibration: 1,
      toolSchemaTokens: 0,
      byStrategy: { prune: 0, summary: 0, truncate: 0 },
      noticesTotal: 0,
      notices: [],
    },
    affinity: { failovers: 0 },
    budget: startingBudget(input),
    delegation: noChildren(),
  };
}

function noChildren(): DelegationCarry {
  return { started: 0, held: { tokens: 0, costUsd: 0 }, children: [] };
}

/** What continue-as-new passes on: the same object, one run further. */
export function nextRunCarry(carry: SessionCarry): SessionCarry {
  return { ...carry, runs: carry.runs + 1 };
}

/** A carry written by an earlier version of this code, as that version shaped it. */
export type EarlierCarry = Omit<SessionCarry, 'compaction' | 'affinity' | 'budget' | 'steeringMessages' | 'delegation'> & {
  /** Absent in carries from before delegation. */
  delegation?: DelegationCarry;
  /** Absent in carries from before steering. */
  steeringMessages?: string[];
  compaction: Omit<CompactionCarry, 'byStrategy'> & { byStrategy?: StrategyCounts; done?: StrategyCounts };
  /** Absent in carries from before workspace affinity. */
  affinity?: AffinityCarry;
  /** Absent in carries from before budget guards. */
  budget?: BudgetCarry;
};

/** A carry from any version of this code, with what older versions did not write filled in. */
export function upgradedCarry(carry: EarlierCarry, input: SessionInput): SessionCarry {
  const { done, byStrategy, ...compaction } = carry.compaction;
  return {
    ...carry,
    compaction: { ...compaction, byStrategy: { prune: 0, summary: 0, truncate: 0, ...(byStrategy ?? done) } },
    affinity: carry.affinity ?? { failovers: 0 },
    budget: carry.budget ?? startingBudget(input),
    steeringMessages: carry.steeringMessages ?? [],
    delegation: carry.delegation ?? noChildren(),
  };
}

function startingBudget(input: SessionInput): BudgetCarry {
  return {
    limits: {
      maxSteps: input.maxSteps,
      maxRepeatedToolCalls: input.maxRepeatedToolCalls,
      ...(input.maxTotalTokens !== undefined ? { maxTotalTokens: input.maxTotalTokens } : {}),
      ...(input.maxCostUsd !== undefined ? { maxCostUsd: input.maxCostUsd } : {}),
    },
    agentSpend: { ...NO_SPEND },
    summarySpend: { ...NO_SPEND },
    repeat: { ...NO_REPEAT },
    approvals: 0,
  };
}
