/**
 * The state of one agent session and the bodies of its handlers: the ledger, counters and the
 * step that calls the model and runs tools. Runs in the workflow sandbox; I/O happens in activities.
 */
import { ActivityFailure, allHandlersFinished, ApplicationFailure, condition, log, patched, workflowInfo } from '@temporalio/workflow';
import {
  ActivityFailureType,
  summarizeFailureDetails,
  type CallModelResult,
  type StoreMessagesInput,
  type SummarizeInput,
  type SummarizeSpent,
} from '../activities/types';
import type { ChatMessage } from '../model/messages';
import { ApproveRequestSchema, BudgetGuard, type ApproveRequest } from '../policy/budget';
import type { LedgerEntry, MessageMeasure } from '../policy/ledger';
import { isOversized } from '../policy/oversize';
import { toSeqRuns } from '../policy/seqRuns';
import { resolveCompactionSettings } from '../policy/settings';
import { MessageSignalSchema, REPLACE_CLOSED_MEMO } from '../session/definitions';
import type { SessionInput } from '../session/input';
import {
  SessionOutcome,
  SessionStatus,
  type ApproveResult,
  type CompactNowResult,
  type ManualCompactionReport,
  type SessionResult,
  type SessionState,
  type ToolCallRecord,
  type UsageTotals,
} from '../session/state';
import { describeZodError } from '../session/validation';
import { sessionActivities } from './activityOptions';
import { SessionBudget, type BudgetCarry } from './budget';
import { CompactionController, type CompactionCarry } from './compaction';
import { WorkspaceAffinity, type AffinityCarry } from './workspaceAffinity';

/**
 * What one run hands the next through continue-as-new: numbers, ids and short texts, never
 * message bodies. Plain JSON (arrays and records: a Map would silently become `{}`).
 */
export interface SessionCarry {
  runs: number;
  ledger: LedgerEntry[];
  nextSeq: number;
  turn: number;
  step: number;
  turnOpen: boolean;
  pendingMessages: string[];
  usage: UsageTotals;
  lastToolCalls: ToolCallRecord[];
  warnings: string[];
  answer?: { text: string; seq?: number };
  manualRequested: boolean;
  compaction: CompactionCarry;
  /** Absent in carries from before workspace affinity. */
  affinity?: AffinityCarry;
  /** Absent in carries written before budget guards existed. */
  budget?: BudgetCarry;
}

/** Marks histories written by code that pauses on a tripped budget guard; older ones ended at maxSteps. */
const BUDGET_PAUSE_PATCH = 'budget-guards-pause';

/** Marks histories whose last `compactNow` is served before the session ends; older ones left it open. */
const SERVE_COMPACT_NOW_AT_END_PATCH = 'serve-compact-now-at-end';

/** Marks histories where an oversized task or user message enters the context as a head-and-tail view. */
const USER_TEXT_VIEW_PATCH = 'oversized-user-text-views';

const TOOL_CALLS_SHOWN = 10;
const WARNINGS_KEPT = 20;

export class AgentSession {
  private readonly activities;
  private readonly compaction: CompactionController;
  private readonly affinity: WorkspaceAffinity;
  /** Failover notices to append once the current step's tool results are in. */
  private readonly pendingNotices: string[] = [];
  /** The live context, in order; compaction replaces it wholesale. */
  private ledger: LedgerEntry[] = [];
  private nextSeq = 0;
  private turn = 0;
  private step = 0;
  private status: SessionStatus = SessionStatus.running;
  private turnOpen = false;
  private readonly pendingMessages: string[] = [];
  private readonly usage: UsageTotals = { modelCalls: 0, promptTokens: 0, completionTokens: 0 };
  private readonly lastToolCalls: ToolCallRecord[] = [];
  private readonly warnings: string[] = [];
  private answer?: { text: string; seq?: number };
  private outcome?: SessionOutcome;
  /** Manual compaction: requests are numbered so each `compactNow` gets the run that served it. */
  private manualRequested = false;
  private manualTickets = 0;
  private manualServed = 0;
  /** What the newest manual compaction did; a `compact` signal has no answer, so the state says it. */
  private lastManual: ManualCompactionReport | undefined;
  /** Runs of this session so far, this one included (continue-as-new starts a new run). */
  private runs = 1;
  private readonly budget: SessionBudget;

  constructor(
    readonly sessionId: string,
    readonly input: SessionInput,
    carry?: SessionCarry,
  ) {
    this.activities = sessionActivities(input);
    this.budget = new SessionBudget(input, carry?.budget);
    // Summary calls are billed too: the spend ledger counts them apart from the agent's own.
    const activities = this.activities;
    this.compaction = new CompactionController(
      sessionId,
      input.model,
      resolveCompactionSettings(input.contextWindow, input.compaction),
      {
        ...activities,
        summarize: async (request: SummarizeInput) => {
          let result;
          try {
            result = await activities.summarize(request);
          } catch (error) {
            // A rejected summary was answered, and billed, all the same (DESIGN §5 honest accounting).
            const spent = spentOf(error);
            if (spent) this.budget.recordSummary(spent.usage, spent.calls, spent.possiblyBilledCalls);
            throw error;
          }
          this.budget.recordSummary(result.usage, result.calls, result.possiblyBilledCalls ?? 0);
          return result;
        },
      },
      () => this.allocateSeq(),
      carry?.compaction,
    );
    this.affinity = new WorkspaceAffinity(
      sessionId,
      input,
      this.activities.runTool,
      (warning, notice) => {
        this.warn(warning);
        if (notice !== undefined) this.pendingNotices.push(notice);
      },
      carry?.affinity,
    );
    if (carry) this.resume(carry);
  }

  /** True when this run's history is big enough that the session should go on in a fresh run. */
  get historyFull(): boolean {
    const info = workflowInfo();
    const budget = this.input.continueAsNew;
    return info.continueAsNewSuggested || info.historyLength >= budget.maxHistoryEvents || info.historySize >= budget.maxHistoryBytes;
  }

  /**
   * Everything the next run needs, once this run is quiet: a queued manual compaction is served
   * first (its `compactNow` caller is waiting), then every handler is let finish.
   */
  async carryForward(): Promise<SessionCarry> {
    if (this.manualRequested) await this.runManualCompaction();
    await condition(allHandlersFinished);
    return {
      runs: this.runs + 1,
      ledger: this.ledger,
      nextSeq: this.nextSeq,
      turn: this.turn,
      step: this.step,
      turnOpen: this.turnOpen,
      pendingMessages: [...this.pendingMessages],
      usage: { ...this.usage },
      lastToolCalls: [...this.lastToolCalls],
      warnings: [...this.warnings],
      ...(this.answer ? { answer: this.answer } : {}),
      manualRequested: this.manualRequested,
      compaction: this.compaction.carry(),
      affinity: this.affinity.carry(),
      budget: this.budget.carry(),
    };
  }

  private resume(carry: SessionCarry): void {
    this.runs = carry.runs;
    this.ledger = carry.ledger;
    this.nextSeq = carry.nextSeq;
    this.turn = carry.turn;
    this.step = carry.step;
    this.turnOpen = carry.turnOpen;
    this.pendingMessages.push(...carry.pendingMessages);
    Object.assign(this.usage, carry.usage);
    this.lastToolCalls.push(...carry.lastToolCalls);
    this.warnings.push(...carry.warnings);
    if (carry.answer) this.answer = carry.answer;
    this.manualRequested = carry.manualRequested;
  }

  get finished(): boolean {
    return (
      this.status !== SessionStatus.running &&
      this.status !== SessionStatus.waitingForMessage &&
      this.status !== SessionStatus.waitingForApproval
    );
  }

  get turnEnded(): boolean {
    return !this.turnOpen;
  }

  /**
   * Before each model call: when a budget guard has tripped, pause until update `approve` raises
   * the budget (true: go on) or `approvalTimeoutSeconds` pass. Returns the outcome to end with, or
   * undefined to go on. Histories from before the pause existed ended at maxSteps at once.
   */
  async guardBudget(): Promise<SessionOutcome | undefined> {
    for (;;) {
      const verdict = this.budget.check(this.step);
      if (verdict.kind === 'within') return undefined;
      const outcome = verdict.guard === BudgetGuard.steps ? SessionOutcome.stepLimit : SessionOutcome.budgetExhausted;
      if (this.input.approvalTimeoutSeconds === 0 || !patched(BUDGET_PAUSE_PATCH)) return this.stopForBudget(outcome, verdict.reason);
      const seen = this.budget.approvals;
      const timeoutMs = this.input.approvalTimeoutSeconds * 1000;
      this.budget.pauseFor(verdict, Date.now(), timeoutMs);
      this.status = SessionStatus.waitingForApproval;
      log.warn('budget guard tripped; waiting for approval', { sessionId: this.sessionId, reason: verdict.reason });
      const approved = await this.awaitApproval(seen, timeoutMs);
      this.budget.endPause();
      this.status = SessionStatus.running;
      if (!approved) return this.stopForBudget(outcome, `${verdict.reason}; not approved within ${this.input.approvalTimeoutSeconds} s`);
    }
  }

  /**
   * Waits for an approval after `seen`; false when `timeoutMs` passed without one. A manual
   * compaction asked for meanwhile runs at once (its `compactNow` caller should not wait for the
   * operator too) — it calls only the summarizer, never the agent's next step.
   */
  private async awaitApproval(seen: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.manualRequested) await this.runManualCompaction();
      if (this.budget.approvals > seen) return true;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await condition(() => this.budget.approvals > seen || this.manualRequested, remaining);
    }
  }

  /** Validator of `approve`: only a paused session, and only limits that let it go on. */
  validateApprove(request: ApproveRequest | undefined): void {
    if (this.status !== SessionStatus.waitingForApproval) {
      throw refusedUpdate(`session ${this.sessionId} is ${this.status}, not waiting_for_approval`);
    }
    const parsed = ApproveRequestSchema.safeParse(request ?? {});
    if (!parsed.success) throw refusedUpdate(`invalid approval: ${describeZodError(parsed.error)}`);
    const problem = this.budget.approvalProblem(this.step, parsed.data);
    if (problem) throw refusedUpdate(problem);
  }

  /** Handler of `approve`: raises the limits, restarts the repeated-call count, lets the loop go on. */
  approve(request: ApproveRequest | undefined): ApproveResult {
    return { budget: this.budget.approve(ApproveRequestSchema.parse(request ?? {})) };
  }

  get turnLimitReached(): boolean {
    return this.turn >= this.input.maxTurns;
  }

  /** Stores the pinned system prompt and the task, opening turn 1. */
  async open(): Promise<void> {
    const info = workflowInfo();
    // The first store claims the id's rows for this run: a reused id must never replay another session's transcript.
    const claim = { firstRunId: info.firstExecutionRunId, replace: info.memo?.[REPLACE_CLOSED_MEMO] === true };
    await this.append(
      [
        { role: 'system', content: this.input.systemPrompt },
        { role: 'user', content: this.input.task },
      ],
      { turn: 0, pinned: true },
      claim,
    );
    // The system prompt belongs to no turn; the task opens turn 1.
    const task = this.ledger[1];
    if (task) task.turn = 1;
    this.turn = 1;
    this.turnOpen = true;
  }

  /** Handler of the `message` signal: queues a user message for the next turn. */
  receive(raw: unknown): void {
    const parsed = MessageSignalSchema.safeParse(raw);
    if (!parsed.success) {
      this.warn(`ignored a malformed message signal: ${describeZodError(parsed.error)}`);
      return;
    }
    this.pendingMessages.push(parsed.data.text);
  }

  /** Handler of the `compact` signal: a manual compaction before the next model call. */
  requestCompaction(): void {
    this.manualRequested = true;
  }

  /** Validator of `compactNow`: refuses what cannot be served. */
  validateCompactNow(): void {
    if (this.finished) throw refusedUpdate(`session ${this.sessionId} is ${this.status}; nothing to compact`);
    if (this.compaction.running) throw refusedUpdate(`session ${this.sessionId} is already compacting`);
  }

  /** Handler of `compactNow`: queues a manual compaction and returns what it did (and at which step). */
  async compactNow(): Promise<CompactNowResult> {
    this.manualRequested = true;
    const ticket = ++this.manualTickets;
    await condition(() => this.manualServed >= ticket);
    // Served means recorded; the fallback only satisfies the type.
    return this.lastManual ?? { step: this.step, compacted: false };
  }

  /**
   * Waits (up to the session's `awaitMessagesSeconds`) for a message; false when none came. Manual
   * compactions asked for meanwhile run at once.
   */
  async awaitNextMessage(): Promise<boolean> {
    const deadline = Date.now() + this.input.awaitMessagesSeconds * 1000;
    this.status = SessionStatus.waitingForMessage;
    for (;;) {
      if (this.manualRequested) await this.runManualCompaction();
      const remaining = deadline - Date.now();
      if (this.pendingMessages.length > 0 || remaining <= 0) break;
      await condition(() => this.pendingMessages.length > 0 || this.manualRequested, remaining);
    }
    this.status = SessionStatus.running;
    return this.pendingMessages.length > 0;
  }

  /** Opens the next turn with the oldest pending message. */
  async startTurn(): Promise<void> {
    const text = this.pendingMessages.shift();
    if (text === undefined) throw new Error('startTurn without a pending message');
    this.turn += 1;
    await this.append([{ role: 'user', content: text }], { turn: this.turn });
    this.turnOpen = true;
  }

  /** One step: a model call, then every tool call it declared, each answered in order. */
  async takeStep(): Promise<void> {
    this.step += 1;
    if (this.manualRequested) await this.runManualCompaction();
    await this.compact('auto');
    const reply = await this.callModel();
    this.usage.modelCalls += 1;
    this.usage.promptTokens += reply.usage.promptTokens;
    this.usage.completionTokens += reply.usage.completionTokens;
    this.budget.recordAgentCall(reply.usage, reply.toolCalls);
    this.record(reply.measure);

    if (reply.toolCalls.length === 0) {
      this.answer = { text: reply.text ?? '', seq: reply.measure.seq };
      this.turnOpen = false;
      return;
    }
    // Every declared call gets its result, even after `finish`: an unanswered call would make an
    // OpenAI-compatible server reject every later request of the session.
    for (const call of reply.toolCalls) {
      const result = await this.affinity.runTool({
        sessionId: this.sessionId,
        seq: this.allocateSeq(),
        callSeq: reply.measure.seq,
        toolCallId: call.id,
        timeoutSeconds: this.input.toolTimeoutSeconds,
        outputCapChars: this.input.toolOutputCapChars,
      });
      this.ledger.push(await this.compaction.viewIfOversized(this.entryOf(result.measure)));
      this.noteToolCall({
        step: this.step,
        name: result.toolName,
        seq: result.measure.seq,
        isError: result.isError,
        ...(result.error ? { error: result.error } : {}),
      });
      if (result.finished) {
        this.answer = { text: result.finished.answer, seq: result.measure.seq };
        this.turnOpen = false;
      }
    }
    // After the results: a message between a call and its result would make the request invalid.
    const notices = this.pendingNotices.splice(0);
    if (notices.length > 0) await this.append(notices.map((content) => ({ role: 'user', content })), { turn: this.turn, step: this.step });
  }

  /**
   * Ends the session. A `compactNow` accepted during the last step is served first: its caller is
   * waiting for the answer, and a workflow that completes under an open update leaves it unanswered.
   */
  async end(outcome: SessionOutcome): Promise<SessionResult> {
    if (this.manualTickets > this.manualServed && patched(SERVE_COMPACT_NOW_AT_END_PATCH)) await this.runManualCompaction();
    this.outcome = outcome;
    this.status = SessionStatus.completed;
    if (outcome === SessionOutcome.stepLimit) {
      this.answer = { text: `stopped after ${this.step} steps (maxSteps ${this.budget.maxSteps})` };
    } else if (outcome === SessionOutcome.turnLimit) {
      this.warn(`a message arrived after the last allowed turn (maxTurns ${this.input.maxTurns}); it was not answered`);
    }
    return {
      sessionId: this.sessionId,
      outcome,
      answer: this.answer?.text ?? '',
      ...(this.answer?.seq !== undefined ? { answerSeq: this.answer.seq } : {}),
      turns: this.turn,
      steps: this.step,
      usage: { ...this.usage },
      spend: this.budget.spend(),
      finalState: this.state(),
    };
  }

  /** Marks the session failed, so the `state` query says why, and returns the failure to throw. */
  fail(message: string, type: string, cause?: Error): ApplicationFailure {
    this.status = SessionStatus.failed;
    this.warn(message);
    return ApplicationFailure.create({ message, type, nonRetryable: true, cause });
  }

  /** Marks the session cancelled for the `state` query; the cancellation itself goes on up. */
  cancelled(error: unknown): unknown {
    this.status = SessionStatus.cancelled;
    return error;
  }

  state(): SessionState {
    const workspace = this.affinity.report();
    // A pause ends with the session: a cancelled or failed one waits for no approval.
    const paused = this.status === SessionStatus.waitingForApproval ? this.budget.paused : undefined;
    return {
      sessionId: this.sessionId,
      status: this.status,
      runs: this.runs,
      model: this.input.model,
      turn: this.turn,
      step: this.step,
      maxSteps: this.budget.maxSteps,
      maxTurns: this.input.maxTurns,
      context: {
        tokens: this.compaction.estimate(this.ledger),
        window: this.input.contextWindow,
        messages: this.ledger.length,
      },
      usage: { ...this.usage },
      spend: this.budget.spend(),
      budget: this.budget.report(),
      ...(paused ? { paused } : {}),
      compaction: { ...this.compaction.report(), ...(this.lastManual ? { lastManual: { ...this.lastManual } } : {}) },
      lastToolCalls: [...this.lastToolCalls],
      pendingMessages: this.pendingMessages.length,
      ...(workspace ? { workspace } : {}),
      warnings: [...this.warnings],
      ...(this.outcome ? { outcome: this.outcome } : {}),
      ...(this.answer ? { answer: this.answer.text, ...(this.answer.seq !== undefined ? { answerSeq: this.answer.seq } : {}) } : {}),
    };
  }

  /**
   * The model call, with the reactive path of DESIGN §5: an overflow compacts (reason `reactive`)
   * and retries, a second truncates and retries, a third fails the session. The reply's seq is
   * allocated once: a rejected call stored nothing under it.
   */
  private async callModel(): Promise<CallModelResult> {
    const seq = this.allocateSeq();
    for (let overflows = 0; ; overflows++) {
      const sent = [...this.ledger];
      try {
        const reply = await this.activities.callModel({
          sessionId: this.sessionId,
          seq,
          context: toSeqRuns(sent.map((entry) => entry.seq)),
          model: this.input.model,
          ...(this.input.maxOutputTokens ? { maxOutputTokens: this.input.maxOutputTokens } : {}),
        });
        this.compaction.noteModelCall(sent, reply);
        return reply;
      } catch (error) {
        if (!isContextOverflow(error)) throw error;
        if (overflows === 0) await this.compact('reactive');
        else if (overflows === 1) this.ledger = (await this.compaction.truncateNow(this.ledger, 'repeated_overflow', 'reactive', this.position())).ledger;
        else throw this.fail(`the model rejected the context as too long three times at step ${this.step}`, ActivityFailureType.contextOverflow, error as Error);
      }
    }
  }

  /** Runs the decision for `request` and adopts the context it leaves. */
  private async compact(request: 'auto' | 'manual' | 'reactive') {
    const result = await this.compaction.run(this.ledger, request, this.position());
    this.ledger = result.ledger;
    return result;
  }

  private async runManualCompaction(): Promise<void> {
    this.manualRequested = false;
    const ticket = this.manualTickets;
    const { notice, decision } = await this.compact('manual');
    this.lastManual = notice
      ? { step: this.step, compacted: notice.failed === undefined, notice }
      : { step: this.step, compacted: false, reason: decision.kind === 'none' ? decision.reason : decision.kind };
    this.manualServed = ticket;
  }

  /** Ends on a guard: the answer says which, unless the agent had already answered. */
  private stopForBudget(outcome: SessionOutcome, reason: string): SessionOutcome {
    if (outcome === SessionOutcome.budgetExhausted) this.answer = { text: `stopped: ${reason}` };
    return outcome;
  }

  private position() {
    return { turn: this.turn, step: this.step };
  }

  private async append(
    messages: ChatMessage[],
    where: { turn: number; step?: number; pinned?: boolean },
    claim?: StoreMessagesInput['claim'],
  ): Promise<void> {
    const measures = await this.activities.storeMessages({
      sessionId: this.sessionId,
      messages: messages.map((message) => ({ seq: this.allocateSeq(), message })),
      ...(claim === undefined ? {} : { claim }),
    });
    for (const [index, measure] of measures.entries()) {
      const entry: LedgerEntry = { ...measure, turn: where.turn, step: where.step ?? 0, ...(where.pinned ? { pinned: true } : {}) };
      // A task or message too big for the window (a stock-CLI start, a raw signal) is kept whole in the store
      // and shown as a view that read_output pages, like an oversized tool result; else it would end the session.
      // The patch is asked only for such text, so ordinary histories carry no marker for it.
      const oversizedUser = messages[index]?.role === 'user' && this.oversized(entry);
      this.ledger.push(oversizedUser && patched(USER_TEXT_VIEW_PATCH) ? await this.compaction.viewIfOversized(entry) : entry);
    }
  }

  private record(measure: MessageMeasure): void {
    this.ledger.push(this.entryOf(measure));
  }

  private entryOf(measure: MessageMeasure): LedgerEntry {
    return { ...measure, turn: this.turn, step: this.step };
  }

  private oversized(entry: LedgerEntry): boolean {
    const settings = resolveCompactionSettings(this.input.contextWindow, this.input.compaction);
    return settings.enabled && isOversized(entry, settings, settings.contextWindow);
  }

  private allocateSeq(): number {
    return this.nextSeq++;
  }

  private noteToolCall(record: ToolCallRecord): void {
    this.lastToolCalls.push(record);
    if (this.lastToolCalls.length > TOOL_CALLS_SHOWN) this.lastToolCalls.shift();
  }

  private warn(message: string): void {
    log.warn(message, { sessionId: this.sessionId });
    this.warnings.push(message);
    if (this.warnings.length > WARNINGS_KEPT) this.warnings.shift();
  }
}

/** What a failed summarize attempt cost, from the first detail of its failure (see `SummarizeSpent`). */
function spentOf(error: unknown): SummarizeSpent | undefined {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) return undefined;
  return summarizeFailureDetails(error.cause.details?.[0]).spent;
}

function isContextOverflow(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof ApplicationFailure &&
    error.cause.type === ActivityFailureType.contextOverflow
  );
}

/** A refused update: final, so the stock CLI and the Web UI do not show it as retryable. */
function refusedUpdate(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: 'UpdateRefused', nonRetryable: true });
}
