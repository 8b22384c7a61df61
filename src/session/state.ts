/** What the `state` query answers and what a session returns; plain JSON, shared by workflow and clients. */
import type { CompactionEvent } from '../policy/compactionEvent';
import type { CacheEconomics, CompactionRequest } from '../policy/decision';
import type { BreakerState } from '../policy/breaker';
import type { BudgetGuard, BudgetLimits } from '../policy/budget';
import type { SeqRun } from '../policy/seqRuns';
import type { CallSpendReport, Price } from '../policy/spend';
import type { SummaryRequestShape } from '../model/summaryFormat';

export const SessionStatus = {
  running: 'running',
  waitingForMessage: 'waiting_for_message',
  /** A budget guard tripped: no model calls until update `approve` (or cancellation). */
  waitingForApproval: 'waiting_for_approval',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  /**
   * Closed by Temporal, not by the session: terminated, or past its execution timeout. The workflow
   * never sets these; the client does, from the run's status, over the last state the workflow had.
   */
  terminated: 'terminated',
  timedOut: 'timed_out',
} as const;
export type SessionStatus = (typeof SessionStatus)[keyof typeof SessionStatus];

/** The statuses of a session that is over, however it ended. */
export const ENDED_STATUSES: ReadonlySet<SessionStatus> = new Set([
  SessionStatus.completed,
  SessionStatus.failed,
  SessionStatus.cancelled,
  SessionStatus.terminated,
  SessionStatus.timedOut,
]);

/** Why a session ended. */
export const SessionOutcome = {
  /** The agent finished its last turn and no message was waiting. */
  finished: 'finished',
  stepLimit: 'step_limit',
  turnLimit: 'turn_limit',
  /** A token, cost or repeated-call guard tripped and no approval came in time. */
  budgetExhausted: 'budget_exhausted',
} as const;
export type SessionOutcome = (typeof SessionOutcome)[keyof typeof SessionOutcome];

export interface UsageTotals {
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
}

/** The spend ledger of the `state` query: the agent's own calls and compaction summaries apart. */
export interface SpendReport {
  agent: CallSpendReport;
  summary: CallSpendReport;
  /** Everything the session's children spent (theirs rolled up in turn); absent before a child ended. */
  delegates?: CallSpendReport;
  /** Prompt plus completion tokens of both. */
  totalTokens: number;
  costUsd: number;
  /**
   * Cached over prompt tokens of both roles together, 0 to 1 (0 before any prompt). Absent in
   * results of sessions that ended before it existed.
   */
  cacheHitRatio?: number;
  /** The price the cost was computed with; absent when none is known (cost then reads 0). */
  price?: Price;
}

/** The budget in force (raised by each approval). */
export interface BudgetReport extends BudgetLimits {
  approvalTimeoutSeconds: number;
  /** Approvals so far. */
  approvals: number;
}

/** Why a session is `waiting_for_approval`. */
export interface PauseReport {
  guard: BudgetGuard;
  reason: string;
  /** Workflow time the guard tripped. */
  since: string;
  /** When the session ends unless approved. */
  until: string;
}

/** What update `approve` answers: the budget now in force. */
export interface ApproveResult {
  budget: BudgetReport;
}

/** A child session this one started with `delegate`, as its parent last saw it. */
export interface ChildSessionReport {
  sessionId: string;
  /** The parent's step whose `delegate` call started it. */
  step: number;
  /** The head of its task. */
  task: string;
  status: SessionStatus;
  outcome?: SessionOutcome;
  steps?: number;
  totalTokens?: number;
  costUsd?: number;
}

/** Where a session sits in its tree: its parent, and the children it started (the newest, oldest first). */
export interface DelegationReport {
  /** 0 for a session a person started. */
  depth: number;
  parentSessionId?: string;
  childrenStarted: number;
  children: ChildSessionReport[];
}

export interface ToolCallRecord {
  step: number;
  name: string;
  /** Seq of the stored result. */
  seq: number;
  isError: boolean;
  /** An error result's first line, capped, so a step line can say why (a refused run_command…). */
  error?: string;
}

/** One compaction (or truncation) as the state query and the CLI show it. */
export interface CompactionNotice {
  /** Workflow time of the compaction. */
  at: string;
  turn: number;
  step: number;
  reason: CompactionRequest;
  strategy: CompactionEvent['strategy'];
  tokensBefore: number;
  tokensAfter: number;
  /** Original seqs the summary covers, as runs. */
  coveredSeqs: readonly SeqRun[];
  /** Original seqs a truncation dropped from the context (still in the store), as runs. */
  truncatedSeqs: readonly SeqRun[];
  /** Tool results replaced by head-and-tail views. */
  replaced?: number;
  summarySeq?: number;
  /** Set when the compaction failed (it counts on the breaker); the reason in words. */
  failed?: string;
  /** The breaker was open and this compaction was its one half-open retry (success closes it). */
  halfOpenRetry?: boolean;
  /** What this compaction did to the breaker: a failure opened it, or a success closed an open one. */
  breaker?: 'opened' | 'closed';
  /** Its prompt-cache account, when pruning and a summary were weighed (DESIGN §5 "Prune only when it pays"). */
  cache?: CacheEconomics;
  /** How the summary request was built: `continued` repeated the previous request, so the cache served it. */
  summaryRequest?: SummaryRequestShape;
  /** The model's summary had this many tokens, over its budget, and agentd cut it down (DESIGN §5 "Land with room"). */
  summaryTrimmedFromTokens?: number;
  /**
   * The model calls this compaction was billed for: its summary request(s), answered or rejected,
   * priced as the session's ledger prices them (and counted there too). Zero for a prune or a
   * truncation, which call no model. Absent in notices recorded before it existed.
   */
  spend?: CallSpendReport;
}

interface CompactionReport {
  /** Auto-compaction starts at this estimate. */
  trigger: number;
  breaker: BreakerState;
  /**
   * Set while the breaker is open: the operator's one line (`breaker OPEN since step 7: 3
   * compactions failed (refusal, …); running on pruning and truncation; next retry at step 27`).
   */
  warning?: string;
  /** Successful compactions and truncations so far. */
  compactions: number;
  byStrategy: { prune: number; summary: number; truncate: number };
  /** Notices ever recorded, failures included; `notices` keeps only the newest. */
  noticesTotal: number;
  /** The newest notices, oldest first. */
  notices: CompactionNotice[];
  /** The newest manual compaction (signal `compact` or update `compactNow`), also when it found nothing to do. */
  lastManual?: ManualCompactionReport;
}

/** What the newest manual compaction did, at which step. */
export interface ManualCompactionReport extends CompactNowResult {
  step: number;
}

/** What `compactNow` answers: the notice of the compaction, or why there was none. */
export interface CompactNowResult {
  compacted: boolean;
  notice?: CompactionNotice;
  /** Set when nothing was done (e.g. `nothing_to_compact`). */
  reason?: string;
}

/** Where the session's workspace lives; absent until the first tool call claims one. */
export interface WorkspaceReport {
  hostId: string;
  /** The task queue its tool calls go to (`agentd-host-<hostId>`, or the shared one for a lone worker). */
  taskQueue: string;
  /** Times the session moved to a fresh workspace because its host was gone. */
  failovers: number;
}

export interface SessionState {
  sessionId: string;
  status: SessionStatus;
  /** Workflow runs so far: continue-as-new starts a new one when history grows large. */
  runs: number;
  model: string;
  turn: number;
  /** Steps (model calls) taken so far in the session. */
  step: number;
  maxSteps: number;
  maxTurns: number;
  context: {
    /** Estimated prompt tokens of the next request. */
    tokens: number;
    window: number;
    messages: number;
  };
  usage: UsageTotals;
  spend: SpendReport;
  budget: BudgetReport;
  /** Set while the status is `waiting_for_approval`. */
  paused?: PauseReport;
  compaction: CompactionReport;
  /** The newest tool calls, oldest first. */
  lastToolCalls: ToolCallRecord[];
  pendingMessages: number;
  workspace?: WorkspaceReport;
  /** Present for a child session, and for one that has started children. */
  delegation?: DelegationReport;
  /** Things the session noticed and went on from (ignored malformed signals…), newest last. */
  warnings: string[];
  outcome?: SessionOutcome;
  /** Final answer (capped; the whole text is in the store at `answerSeq`). */
  answer?: string;
  answerSeq?: number;
}

export interface SessionResult {
  sessionId: string;
  outcome: SessionOutcome;
  answer: string;
  answerSeq?: number;
  turns: number;
  steps: number;
  usage: UsageTotals;
  /** Absent in results of sessions that ended before the spend ledger existed. */
  spend?: SpendReport;
  /**
   * The `state` query's answer as the session ended. Querying a closed workflow replays it on a
   * worker; this lets `agentd status` read a finished session when no worker runs. Absent in
   * results of sessions that ended before it existed.
   */
  finalState?: SessionState;
}
