/**
 * Runs the compaction decision before every model call and carries out what it says: cut tool
 * results, summarize the older region, or truncate whole steps. Holds the breaker, the usage
 * anchor and the calibration, and records an event per compaction. Workflow code: I/O goes through
 * activities; the rules are in `src/policy`.
 */
import { ActivityFailure, ApplicationFailure, log, patched } from '@temporalio/workflow';
import { ActivityFailureType, summarizeFailureDetails, type CallModelResult, type SummarizeInput, type SummarizeResult, type ViewRequest } from '../activities/types';
import {
  allowsAutoCompaction,
  appendOriginals,
  breakerWarning,
  isHalfOpen,
  applyCompaction,
  applyTruncation,
  calibrate,
  CLOSED_BREAKER,
  decide,
  decideTruncation,
  estimateContext,
  isOversized,
  oversizedView,
  rawContextTokens,
  recordFailure,
  recordSuccess,
  verifyCompaction,
  withSessionMemory,
  type AppliedCompaction,
  type BreakerState,
  type CompactDecision,
  CompactionRequest,
  type CompactionResults,
  type Decision,
  LedgerKind,
  type LedgerEntry,
  type ResolvedCompactionSettings,
  type TruncateDecision,
  type TruncateWhy,
  type UsageAnchor,
  type ViewCut,
  toSeqRuns,
} from '../policy';
import type { CompactionNotice } from '../session/state';
import type { SessionActivities } from './activityOptions';

/** The activities compaction calls; the session wraps `summarize` to count what it bills. */
export type CompactionActivities = Pick<SessionActivities, 'cutToolResults' | 'storeSessionMemory'> & {
  summarize(input: SummarizeInput): Promise<SummarizeResult>;
};

const NOTICES_KEPT = 20;

/**
 * Marks histories written with the graceful rules (DESIGN §5): pruning and truncation to the target
 * with the breaker open, the half-open breaker, projections with the summary header. Older histories
 * replay with the old decisions, which issued other activities in another order.
 */
export const GRACEFUL_COMPACTION_PATCH = 'compaction-degrades-gracefully';

/** How one compaction relates to the breaker. */
interface BreakerRole {
  /** The breaker is open and its cool-down is over: this is the one retry. */
  halfOpen: boolean;
  /** The breaker is open and this is model-free pruning only: it neither counts nor closes. */
  bypass: boolean;
  /** Record failures with step and reason, so the breaker can half-open. */
  graceful: boolean;
}

/** Marks histories whose summary compactions store a session memory beside the summary (DESIGN §5). */
const SESSION_MEMORY_PATCH = 'session-memory';

/** Marks histories whose truncations store a fresh session memory (DESIGN §5 "Session memory"). */
const TRUNCATION_MEMORY_PATCH = 'memory-at-truncation';

/** Marks histories whose kept steps may get views of long tool-call arguments (DESIGN §5 "Result"). */
const TOOL_CALL_VIEWS_PATCH = 'tool-call-views';

/** The original seqs a summary compaction leaves in the context: pinned entries and the tail. */
function keptOriginals(ledger: readonly LedgerEntry[], decision: CompactDecision) {
  const kept = new Set([...decision.pinned, ...decision.tail]);
  const originals: number[] = [];
  for (const entry of ledger) if (kept.has(entry.seq)) appendOriginals(originals, entry);
  return toSeqRuns(originals.sort((a, b) => a - b));
}

/** Where in the session a compaction happened, for its notice. */
export interface SessionPosition {
  turn: number;
  step: number;
}

/** The controller's state as continue-as-new carries it to the next run. */
export interface CompactionCarry {
  breaker: BreakerState;
  anchor?: UsageAnchor;
  calibration: number;
  toolSchemaTokens: number;
  done: Record<CompactionNotice['strategy'], number>;
  noticesTotal: number;
  notices: CompactionNotice[];
}

export class CompactionController {
  breaker: BreakerState = { ...CLOSED_BREAKER };
  private anchor?: UsageAnchor;
  private calibration = 1;
  private toolSchemaTokens = 0;
  private readonly done: Record<CompactionNotice['strategy'], number> = { prune: 0, summary: 0, truncate: 0 };
  private noticesTotal = 0;
  private readonly notices: CompactionNotice[] = [];
  /** True while a compaction runs: `compactNow` refuses to queue behind it. */
  running = false;

  constructor(
    private readonly sessionId: string,
    private readonly model: string,
    private readonly settings: ResolvedCompactionSettings,
    private readonly activities: CompactionActivities,
    private readonly allocateSeq: () => number,
    carried?: CompactionCarry,
  ) {
    if (carried) {
      this.breaker = carried.breaker;
      if (carried.anchor) this.anchor = carried.anchor;
      this.calibration = carried.calibration;
      this.toolSchemaTokens = carried.toolSchemaTokens;
      Object.assign(this.done, carried.done);
      this.noticesTotal = carried.noticesTotal;
      this.notices.push(...carried.notices);
    }
  }

  carry(): CompactionCarry {
    return {
      breaker: { ...this.breaker },
      ...(this.anchor ? { anchor: this.anchor } : {}),
      calibration: this.calibration,
      toolSchemaTokens: this.toolSchemaTokens,
      done: { ...this.done },
      noticesTotal: this.noticesTotal,
      notices: [...this.notices],
    };
  }

  /** Estimated prompt tokens of the next request for `ledger`. */
  estimate(ledger: readonly LedgerEntry[]): number {
    return estimateContext(ledger, this.estimateInput(), this.settings.perMessageOverheadTokens).tokens;
  }

  /** The record the `state` query shows. */
  report() {
    return {
      trigger: this.settings.triggerTokens,
      breaker: { ...this.breaker },
      ...(breakerWarning(this.breaker) ? { warning: breakerWarning(this.breaker) } : {}),
      compactions: this.done.prune + this.done.summary + this.done.truncate,
      byStrategy: { ...this.done },
      noticesTotal: this.noticesTotal,
      notices: [...this.notices],
    };
  }

  /** After a model call: anchor the estimate on what the server measured, and calibrate our counts. */
  noteModelCall(ledgerSent: readonly LedgerEntry[], reply: CallModelResult): void {
    this.toolSchemaTokens = reply.toolSchemaTokens;
    if (reply.usage.promptTokens <= 0) return;
    const ours = rawContextTokens(ledgerSent, this.settings.perMessageOverheadTokens, this.toolSchemaTokens);
    this.calibration = calibrate(this.calibration, reply.usage.promptTokens, ours);
    this.anchor = { ...reply.usage, lastSeq: reply.measure.seq };
  }

  /**
   * Decides and, when the decision says so, compacts or truncates. Returns the ledger to use and
   * the notice of what was done (undefined when nothing was).
   */
  async run(
    ledger: LedgerEntry[],
    request: CompactionRequest,
    at: SessionPosition,
  ): Promise<{ ledger: LedgerEntry[]; notice?: CompactionNotice; decision: Decision }> {
    const graceful = patched(GRACEFUL_COMPACTION_PATCH);
    const decision = decide({
      ledger,
      settings: this.settings,
      estimateInput: this.estimateInput(),
      breaker: this.breaker,
      request,
      step: at.step,
      graceful,
      cutToolCalls: patched(TOOL_CALL_VIEWS_PATCH),
      memoryAtTruncation: patched(TRUNCATION_MEMORY_PATCH),
    });
    if (decision.kind === 'none') return { ledger, decision };
    if (decision.kind === 'truncate') return { ...(await this.truncate(ledger, decision, at)), decision };
    const auto = request === CompactionRequest.auto;
    const role: BreakerRole = {
      halfOpen: graceful && auto && isHalfOpen(this.breaker, at.step),
      bypass: graceful && auto && !allowsAutoCompaction(this.breaker, at.step),
      graceful,
    };
    this.running = true;
    try {
      return { ...(await this.compact(ledger, decision, at, role)), decision };
    } finally {
      this.running = false;
    }
  }

  /** Model-free truncation asked for by the workflow itself (e.g. a second overflow). */
  async truncateNow(
    ledger: LedgerEntry[],
    why: TruncateWhy,
    request: CompactionRequest,
    at: SessionPosition,
  ): Promise<{ ledger: LedgerEntry[]; notice?: CompactionNotice }> {
    const decision = decideTruncation(
      {
        ledger,
        settings: this.settings,
        estimateInput: this.estimateInput(),
        breaker: this.breaker,
        request,
        step: at.step,
        graceful: patched(GRACEFUL_COMPACTION_PATCH),
        memoryAtTruncation: patched(TRUNCATION_MEMORY_PATCH),
      },
      why,
    );
    return decision.kind === 'truncate' ? this.truncate(ledger, decision, at) : { ledger };
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

  private async compact(ledger: LedgerEntry[], decision: CompactDecision, at: SessionPosition, role: BreakerRole) {
    const bySeq = new Map(ledger.map((entry) => [entry.seq, entry]));
    const cuts = decision.strategy === 'summary' ? decision.tailCuts : [...decision.prune, ...decision.tailCuts];
    let applied: AppliedCompaction;
    try {
      const results: CompactionResults = {};
      if (cuts.length > 0) {
        const requests = cuts.map((cut) => this.viewRequest(bySeq.get(cut.seq)!, cut));
        const measures = await this.activities.cutToolResults({ sessionId: this.sessionId, views: requests });
        Object.assign(results, {
          views: measures.map((measure, index) => ({ replacedSeq: cuts[index]!.seq, ...measure })),
        });
      }
      if (decision.strategy === 'summary') {
        const seq = this.allocateSeq();
        // Histories from before the session memory allocated no seq for it and stored none.
        const memory = patched(SESSION_MEMORY_PATCH)
          ? { memorySeq: this.allocateSeq(), memoryBudgetTokens: decision.memoryBudgetTokens, kept: keptOriginals(ledger, decision) }
          : {};
        const summary = await this.activities.summarize({
          sessionId: this.sessionId,
          seq,
          pinned: toSeqRuns(decision.pinned),
          region: decision.summarize,
          covers: decision.covers,
          model: this.model,
          budgetTokens: decision.summaryBudgetTokens,
          contextWindow: this.settings.contextWindow,
          ...memory,
        });
        Object.assign(results, { summary: summary.measure, ...(summary.memory ? { memory: summary.memory } : {}) });
      }
      applied = applyCompaction(ledger, decision, results);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const why = `${error.activityType} failed: ${error.cause?.message ?? error.message}`;
      return this.failed(ledger, decision, at, why, failureReason(error), role);
    }
    const verdict = verifyCompaction(decision, applied);
    if (!verdict.ok) return this.failed(verdict.adopt ? applied.ledger : ledger, decision, at, verdict.message, verdict.code, role);
    const wasOpen = this.breaker.open;
    if (closesBreaker(decision, role)) this.breaker = recordSuccess(this.breaker);
    // The anchor described a context that no longer exists.
    this.anchor = undefined;
    const marks = {
      ...(role.halfOpen ? { halfOpenRetry: true } : {}),
      ...(wasOpen && !this.breaker.open ? { breaker: 'closed' as const } : {}),
    };
    return { ledger: applied.ledger, notice: this.remember(applied, at, marks) };
  }

  /**
   * A failed compaction counts on the breaker. When the request would now be too big anyway,
   * the oldest whole steps are dropped so no known-oversize request is ever sent.
   */
  private async failed(ledger: LedgerEntry[], decision: CompactDecision, at: SessionPosition, why: string, reason: string, role: BreakerRole) {
    const wasOpen = this.breaker.open;
    if (!role.bypass) {
      const failure = { step: at.step, coolDownSteps: this.settings.breakerCoolDownSteps, reason };
      this.breaker = recordFailure(this.breaker, this.settings.breakerThreshold, role.graceful ? failure : undefined);
    }
    log.warn('compaction failed', { sessionId: this.sessionId, why, breaker: this.breaker });
    const notice: CompactionNotice = {
      ...this.position(at),
      reason: decision.reason,
      strategy: decision.strategy,
      tokensBefore: decision.estimateBefore,
      tokensAfter: decision.estimateBefore,
      coveredSeqs: [],
      truncatedSeqs: [],
      failed: why,
      ...(role.halfOpen ? { halfOpenRetry: true } : {}),
      ...(!wasOpen && this.breaker.open ? { breaker: 'opened' as const } : {}),
    };
    this.pushNotice(notice);
    // The truncation, if any, has a notice of its own; the caller is told about the failure.
    return { ledger: (await this.truncateNow(ledger, 'cannot_compact', decision.reason, at)).ledger, notice };
  }

  private async truncate(ledger: LedgerEntry[], decision: Extract<Decision, { kind: 'truncate' }>, at: SessionPosition) {
    let applied = applyTruncation(ledger, decision);
    if ((decision.memoryBudgetTokens ?? 0) > 0) applied = await this.rememberDropped(applied, decision);
    this.anchor = undefined;
    return { ledger: applied.ledger, notice: this.remember(applied, at) };
  }

  /**
   * After a truncation, a fresh session memory: what the dropped steps held of the user's words and
   * the artifact trail stays in the context though no summary was written. A memory that cannot be
   * stored (the store is down past the activity's retries) leaves the truncation as it was.
   */
  private async rememberDropped(applied: AppliedCompaction, decision: TruncateDecision): Promise<AppliedCompaction> {
    const pinned: number[] = [];
    const summarized: number[] = [];
    const kept: number[] = [];
    for (const entry of applied.ledger) {
      if (entry.pinned) pinned.push(entry.seq);
      if (entry.kind === LedgerKind.summary) appendOriginals(summarized, entry);
      else appendOriginals(kept, entry);
    }
    try {
      const memory = await this.activities.storeSessionMemory({
        sessionId: this.sessionId,
        memorySeq: this.allocateSeq(),
        pinned: toSeqRuns(pinned),
        summarized: toSeqRuns(summarized.sort((a, b) => a - b)),
        kept: toSeqRuns(kept.sort((a, b) => a - b)),
        budgetTokens: decision.memoryBudgetTokens ?? 0,
      });
      return withSessionMemory(applied, memory, decision.projection);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('session memory not stored after a truncation', { sessionId: this.sessionId, why: error.cause?.message ?? error.message });
      return applied;
    }
  }

  private remember(applied: AppliedCompaction, at: SessionPosition, marks: Partial<CompactionNotice> = {}): CompactionNotice {
    const { event } = applied;
    const notice: CompactionNotice = {
      ...this.position(at),
      reason: event.reason,
      strategy: event.strategy,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
      coveredSeqs: event.coveredSeqs,
      truncatedSeqs: event.truncatedSeqs,
      ...(event.replaced.length > 0 ? { replaced: event.replaced.length } : {}),
      ...(event.summary ? { summarySeq: event.summary.seq } : {}),
      ...marks,
    };
    this.done[notice.strategy] += 1;
    this.pushNotice(notice);
    return notice;
  }

  private pushNotice(notice: CompactionNotice): void {
    this.noticesTotal += 1;
    this.notices.push(notice);
    if (this.notices.length > NOTICES_KEPT) this.notices.shift();
  }

  private position(at: SessionPosition) {
    // Date.now() is the workflow's deterministic clock inside the sandbox.
    return { at: new Date(Date.now()).toISOString(), turn: at.turn, step: at.step };
  }

  /** Views are always cut from the original body, also when re-cutting an earlier view smaller. */
  private viewRequest(entry: LedgerEntry, cut: ViewCut): ViewRequest {
    return {
      sourceSeq: entry.kind === 'view' && entry.replaces !== undefined ? entry.replaces : entry.seq,
      viewSeq: this.allocateSeq(),
      headChars: cut.headChars,
      tailChars: cut.tailChars,
    };
  }

  private estimateInput() {
    return {
      ...(this.anchor ? { anchor: this.anchor } : {}),
      calibration: this.calibration,
      toolSchemaTokens: this.toolSchemaTokens,
    };
  }
}


/** A short reason for the breaker's warning: the rejection kind of a summary, else the failure type. */
function failureReason(error: ActivityFailure): string {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure)) return 'failed';
  if (cause.type === ActivityFailureType.summaryRejected) return summarizeFailureDetails(cause.details?.[0]).rejection ?? 'rejected';
  return cause.type === ActivityFailureType.modelUnavailable ? 'summarizer unavailable' : (cause.type ?? 'failed');
}

/**
 * Whether a successful compaction resets the breaker. The breaker guards the summarizer, so with the
 * graceful rules an automatic prune (which calls no model) says nothing about it and leaves the
 * count alone; a summary, or any manual or reactive compaction, closes it.
 */
function closesBreaker(decision: CompactDecision, role: BreakerRole): boolean {
  if (role.bypass) return false;
  if (!role.graceful) return true;
  return decision.strategy === 'summary' || decision.reason !== CompactionRequest.auto;
}
