/**
 * Takes the compaction decision before every model call and carries out what it says: cut tool
 * results, summarize the older region, or truncate whole steps. Holds the breaker, the usage anchor
 * and the calibration. Workflow code: I/O goes through activities; the rules are in `src/policy`.
 */
import { ActivityFailure, patched } from '@temporalio/workflow';
import { type CallModelResult, type SummarizeInput, type SummarizeResult, type ViewRequest } from '../activities/types';
import {
  allowsAutoCompaction,
  applyCompaction,
  applyTruncation,
  breakerWarning,
  calibrate,
  CompactionRequest,
  decide,
  decideTruncation,
  estimateContext,
  isHalfOpen,
  isOversized,
  oversizedView,
  rawContextTokens,
  recordSuccess,
  toSeqRuns,
  verifyCompaction,
  type AppliedCompaction,
  type CachePrices,
  type CallSpend,
  type CompactDecision,
  type CompactionResults,
  type DecideInput,
  type Decision,
  type LedgerEntry,
  type ResolvedCompactionSettings,
  type TruncateDecision,
  type TruncationCause,
  type ViewCut,
} from '../policy';
import type { CompactionNotice } from '../session/state';
import type { SessionActivities } from './activityOptions';
import { recordCompactionFailure, type CompactionFailure } from './compactionFailure';
import { CompactionRecord, type NoticeLog, type SessionPosition } from './compactionRecord';
import type { CompactionCarry } from './sessionCarry';
import type { SeqAllocator } from './seqAllocator';
import { closesBreaker, failureReason, type BreakerRole } from './breakerRole';
import { summaryInputOf } from './summaryInput';
import { rememberDropped } from './truncationMemory';

/** The activities compaction calls; the session wraps `summarize` to count what it bills. */
export type CompactionActivities = Pick<SessionActivities, 'cutToolResults' | 'storeSessionMemory'> & {
  summarize(input: SummarizeInput): Promise<SummarizeResult>;
};

/** A context after a compaction, and the notice of what was done (none when nothing was). */
export interface CompactionOutcome {
  ledger: LedgerEntry[];
  notice?: CompactionNotice;
}

/**
 * Marks histories written with the graceful rules (DESIGN §5): pruning and truncation to the target
 * with the breaker open, the half-open breaker, projections with the summary header. Older histories
 * replay with the old decisions, which issued other activities in another order.
 */
const GRACEFUL_COMPACTION_PATCH = 'compaction-degrades-gracefully';

/** Marks histories whose summary compactions store a session memory beside the summary (DESIGN §5). */
const SESSION_MEMORY_PATCH = 'session-memory';

/** Marks histories whose truncations store a fresh session memory (DESIGN §5 "Session memory"). */
const TRUNCATION_MEMORY_PATCH = 'memory-at-truncation';

/** Marks histories whose kept steps may get views of long tool-call arguments (DESIGN §5 "Result"). */
const TOOL_CALL_VIEWS_PATCH = 'tool-call-views';
/** Truncation never drops the summary or the session memory (DESIGN §5 "Session memory"). */
const TRUNCATION_KEEPS_RECORDS_PATCH = 'truncation-keeps-summary-and-memory';

/**
 * Marks histories written with DESIGN §5 "Land with room" and "Prune only when it pays": compactions
 * must reach the target (half the trigger unless set), pruning is weighed in prompt-cache terms, and
 * an open breaker's retry runs at its step. Asked once when the run starts (settings) and at every decision.
 */
export const LAND_WITH_ROOM_PATCH = 'land-with-room';

/** Marks histories where a failed reactive compaction drops steps before the retry (DESIGN §5); asked only then. */
const REACTIVE_FALLBACK_PATCH = 'truncate-after-failed-reactive-compaction';

export class CompactionController {
  private readonly record: CompactionRecord;
  /** True while a compaction runs: `compactNow` refuses to queue behind it. */
  running = false;

  constructor(
    private readonly sessionId: string,
    private readonly model: string,
    private readonly settings: ResolvedCompactionSettings,
    /** For weighing pruning against a summary: the session's prices relative to an uncached input token. */
    private readonly prices: CachePrices,
    private readonly activities: CompactionActivities,
    private readonly seqs: SeqAllocator,
    /** This run's slice of the session carry, changed in place. */
    private readonly carried: CompactionCarry,
  ) {
    this.record = new CompactionRecord(carried);
  }

  /** Estimated prompt tokens of the next request for `ledger`. */
  estimate(ledger: readonly LedgerEntry[]): number {
    return estimateContext(ledger, this.estimateInput(), this.settings.perMessageOverheadTokens).tokens;
  }

  /** The notices recorded so far and since a count, for the step's compaction spans. */
  get notices(): NoticeLog {
    return this.record;
  }

  /** The record the `state` query shows. */
  report() {
    const warning = breakerWarning(this.carried.breaker);
    return { trigger: this.settings.triggerTokens, breaker: { ...this.carried.breaker }, ...(warning ? { warning } : {}), ...this.record.report() };
  }

  /** What the compaction under way was billed for its summary; its notice carries it (DESIGN §6 "Spend under crashes"). */
  billSummary(spend: CallSpend): void {
    this.record.bill(spend);
  }

  /** After a model call: anchor the estimate on what the server measured, and calibrate our counts. */
  noteModelCall(ledgerSent: readonly LedgerEntry[], reply: CallModelResult): void {
    this.carried.toolSchemaTokens = reply.toolSchemaTokens;
    if (reply.usage.promptTokens <= 0) return;
    const ours = rawContextTokens(ledgerSent, this.settings.perMessageOverheadTokens, this.carried.toolSchemaTokens);
    this.carried.calibration = calibrate(this.carried.calibration, reply.usage.promptTokens, ours);
    this.carried.anchor = { ...reply.usage, lastSeq: reply.measure.seq };
    this.carried.lastRequest = toSeqRuns(ledgerSent.map((entry) => entry.seq));
  }

  /** What to do about `ledger` before the next model call (the pure policy; DESIGN §5). */
  decide(ledger: readonly LedgerEntry[], requestedBy: CompactionRequest, step: number): Decision {
    return decide(this.decideInput(ledger, requestedBy, step));
  }

  /** Carries out `decision` on `ledger`; the outcome's ledger is the context to use from now on. */
  async carryOut(ledger: LedgerEntry[], decision: Decision, at: SessionPosition): Promise<CompactionOutcome> {
    if (decision.kind === 'none') return { ledger };
    if (decision.kind === 'truncate') return this.truncate(ledger, decision, at);
    const graceful = patched(GRACEFUL_COMPACTION_PATCH);
    const auto = decision.requestedBy === CompactionRequest.auto;
    const role: BreakerRole = {
      halfOpen: graceful && auto && isHalfOpen(this.carried.breaker, at.step),
      bypass: graceful && auto && !allowsAutoCompaction(this.carried.breaker, at.step),
      graceful,
    };
    this.running = true;
    try {
      return await this.compact(ledger, decision, at, role);
    } finally {
      this.running = false;
    }
  }

  /** Model-free truncation asked for by the workflow itself (a second overflow, a failed compaction). */
  async truncateNow(ledger: LedgerEntry[], cause: TruncationCause, requestedBy: CompactionRequest, at: SessionPosition): Promise<CompactionOutcome> {
    const decision = decideTruncation(this.decideInput(ledger, requestedBy, at.step), cause);
    return decision.kind === 'truncate' ? this.truncate(ledger, decision, at) : { ledger };
  }

  /** The notice of a refused request that no compaction or truncation could shrink; the session fails with `why`. */
  noteCannotFit(ledger: readonly LedgerEntry[], why: string, at: SessionPosition): void {
    const tokens = this.estimate(ledger);
    const nothing = { coveredSeqs: [], truncatedSeqs: [], tokensBefore: tokens, tokensAfter: tokens };
    this.record.failed({ reason: CompactionRequest.reactive, strategy: 'truncate', ...nothing, failed: why }, at);
  }

  /** A tool result too big to ever fit is replaced right away by a view `read_output` pages through. */
  async viewIfOversized(entry: LedgerEntry): Promise<LedgerEntry> {
    if (!this.settings.enabled || !isOversized(entry, this.settings, this.settings.contextWindow)) return entry;
    const cut = oversizedView(entry, this.settings, this.settings.contextWindow);
    if (!cut) return entry;
    const [measure] = await this.activities.cutToolResults({ sessionId: this.sessionId, views: [this.viewRequest(entry, cut)] });
    if (!measure) return entry;
    return { ...entry, ...measure, kind: 'view', replaces: entry.replaces ?? entry.seq };
  }

  /** The patches are asked in this order at every decision; replay depends on it. */
  private decideInput(ledger: readonly LedgerEntry[], requestedBy: CompactionRequest, step: number): DecideInput {
    return {
      ledger,
      settings: this.settings,
      estimateInput: this.estimateInput(),
      breaker: this.carried.breaker,
      request: requestedBy,
      step,
      graceful: patched(GRACEFUL_COMPACTION_PATCH),
      cutToolCalls: patched(TOOL_CALL_VIEWS_PATCH),
      memoryAtTruncation: patched(TRUNCATION_MEMORY_PATCH),
      landWithRoom: patched(LAND_WITH_ROOM_PATCH),
      prices: this.prices,
      truncationKeepsRecords: patched(TRUNCATION_KEEPS_RECORDS_PATCH),
    };
  }

  private async compact(ledger: LedgerEntry[], decision: CompactDecision, at: SessionPosition, role: BreakerRole): Promise<CompactionOutcome> {
    let applied: AppliedCompaction;
    let summary: SummarizeResult | undefined;
    try {
      const done = await this.compactionResults(ledger, decision);
      summary = done.summary;
      applied = applyCompaction(ledger, decision, done.results);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const why = `${error.activityType} failed: ${error.cause?.message ?? error.message}`;
      return this.failed(ledger, { decision, at, why, reason: failureReason(error), role });
    }
    const verdict = verifyCompaction(decision, applied);
    if (!verdict.ok) return this.failed(verdict.adopt ? applied.ledger : ledger, { decision, at, why: verdict.message, reason: verdict.code, role });
    const wasOpen = this.carried.breaker.open;
    if (closesBreaker(decision, role)) this.carried.breaker = recordSuccess(this.carried.breaker);
    // The anchor described a context that no longer exists.
    delete this.carried.anchor;
    const marks = {
      ...(role.halfOpen ? { halfOpenRetry: true } : {}),
      ...(decision.economics ? { cache: decision.economics } : {}),
      ...(summary?.request ? { summaryRequest: summary.request } : {}),
      ...(summary?.trimmedFromTokens !== undefined ? { summaryTrimmedFromTokens: summary.trimmedFromTokens } : {}),
      ...(wasOpen && !this.carried.breaker.open ? { breaker: 'closed' as const } : {}),
    };
    return { ledger: applied.ledger, notice: this.record.done(applied, at, marks) };
  }

  /** The activities of a compaction: the views it cuts, then the summary and the memory beside it. */
  private async compactionResults(ledger: LedgerEntry[], decision: CompactDecision): Promise<{ results: CompactionResults; summary?: SummarizeResult }> {
    const bySeq = new Map(ledger.map((entry) => [entry.seq, entry]));
    const cuts = decision.strategy === 'summary' ? decision.tailCuts : [...decision.prune, ...decision.tailCuts];
    const results: CompactionResults = {};
    if (cuts.length > 0) {
      const requests = cuts.map((cut) => this.viewRequest(bySeq.get(cut.seq)!, cut));
      const measures = await this.activities.cutToolResults({ sessionId: this.sessionId, views: requests });
      Object.assign(results, { views: measures.map((measure, index) => ({ replacedSeq: cuts[index]!.seq, ...measure })) });
    }
    if (decision.strategy !== 'summary') return { results };
    const seq = this.seqs.next();
    // Histories from before the session memory allocated no seq for it and stored none.
    const memorySeq = patched(SESSION_MEMORY_PATCH) ? this.seqs.next() : undefined;
    const parts = { sessionId: this.sessionId, model: this.model, settings: this.settings, lastRequest: this.carried.lastRequest, seq, memorySeq };
    const summary = await this.activities.summarize(summaryInputOf(parts, ledger, decision));
    return { results: { ...results, summary: summary.measure, ...(summary.memory ? { memory: summary.memory } : {}) }, summary };
  }

  /**
   * A failed compaction counts on the breaker. When the request would now be too big anyway,
   * the oldest whole steps are dropped so no known-oversize request is ever sent.
   */
  private async failed(ledger: LedgerEntry[], failure: CompactionFailure): Promise<CompactionOutcome> {
    const notice = recordCompactionFailure(this.sessionId, this.carried, this.settings, this.record, failure);
    // The truncation, if any, has a notice of its own; the caller is told about the failure.
    const { requestedBy } = failure.decision;
    const cause = requestedBy === CompactionRequest.reactive && patched(REACTIVE_FALLBACK_PATCH) ? 'reactive_compaction_failed' : 'cannot_compact';
    return { ledger: (await this.truncateNow(ledger, cause, requestedBy, failure.at)).ledger, notice };
  }

  private async truncate(ledger: LedgerEntry[], decision: TruncateDecision, at: SessionPosition): Promise<CompactionOutcome> {
    let applied = applyTruncation(ledger, decision);
    if ((decision.memoryBudgetTokens ?? 0) > 0) {
      applied = await rememberDropped(this.sessionId, this.activities.storeSessionMemory, this.seqs.next(), applied, decision);
    }
    delete this.carried.anchor;
    return { ledger: applied.ledger, notice: this.record.done(applied, at) };
  }

  /** Views are always cut from the original body, also when re-cutting an earlier view smaller. */
  private viewRequest(entry: LedgerEntry, cut: ViewCut): ViewRequest {
    return {
      sourceSeq: entry.kind === 'view' && entry.replaces !== undefined ? entry.replaces : entry.seq,
      viewSeq: this.seqs.next(),
      headChars: cut.headChars,
      tailChars: cut.tailChars,
    };
  }

  private estimateInput() {
    const { anchor, calibration, toolSchemaTokens } = this.carried;
    return { ...(anchor ? { anchor } : {}), calibration, toolSchemaTokens };
  }
}
