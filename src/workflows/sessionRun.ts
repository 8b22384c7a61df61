/**
 * One run of an agent session: its carried state and the parts that keep it — transcript,
 * compaction, budget, approval gate, manual-compaction queue, workspace affinity — and the few
 * changes of state that belong to no single part (turns, answers, warnings, the end).
 */
import { allHandlersFinished, ApplicationFailure, condition, patched, workflowInfo } from '@temporalio/workflow';
import type { CallModelResult, RunToolResult } from '../activities/types';
import { tooManyToolCallsNotice } from '../model/noticeFormat';
import { cachePricesOf, CompactionRequest, resolveCompactionSettings, type CallSpend, type Decision } from '../policy';
import { REPLACE_CLOSED_MEMO, type InterruptRequest } from '../session/definitions';
import type { SessionInput } from '../session/input';
import { SessionOutcome, SessionStatus } from '../session/state';
import { sessionToolFilter, type ToolFilter } from '../session/toolFilter';
import type { StepTrace } from '../telemetry/stepTrace';
import { sessionActivities, type SessionActivities } from './activityOptions';
import { ApprovalGate, refusedUpdate } from './approvalGate';
import { billedSummaries } from './billedSummaries';
import { SessionBudget } from './sessionBudget';
import { CompactionController, LAND_WITH_ROOM_PATCH } from './compactionController';
import { Delegations } from './delegations';
import { FleetAttributes } from './fleetAttributes';
import type { SessionPosition } from './compactionRecord';
import { ManualCompactionQueue } from './manualCompactionQueue';
import { thenRun, type MaybePending } from './maybePending';
import { firstRunCarry, nextRunCarry, upgradedCarry, type EarlierCarry, type SessionCarry } from './sessionCarry';
import { SeqAllocator } from './seqAllocator';
import { countSummaryCalls } from './sessionMetrics';
import { SessionTranscript } from './sessionTranscript';
import { StepInterrupt } from './stepInterrupt';
import { SessionNotes } from './sessionNotes';
import { StepTelemetry } from './stepTelemetry';
import type { ToolCall, ToolCallRunner } from './toolCallBatches';
import { TurnMessages } from './turnMessages';
import { WorkspaceAffinity } from './workspaceAffinity';

type Ended = typeof SessionStatus.completed | typeof SessionStatus.failed | typeof SessionStatus.cancelled;

export class SessionRun implements ToolCallRunner {
  readonly carry: SessionCarry;
  readonly activities: SessionActivities;
  readonly budget: SessionBudget;
  /** Seqs for every stored row of this run, in the order the workflow asks for them. */
  readonly seqs: SeqAllocator;
  readonly compaction: CompactionController;
  readonly transcript: SessionTranscript;
  readonly manual: ManualCompactionQueue;
  readonly approval: ApprovalGate;
  readonly affinity: WorkspaceAffinity;
  readonly messages: TurnMessages;
  readonly interrupt = new StepInterrupt();
  readonly delegations: Delegations;
  readonly telemetry: StepTelemetry;
  private readonly notes: SessionNotes;
  /** Which tools the session sees; undefined for all of them. */
  readonly toolFilter: ToolFilter | undefined;
  private readonly fleet = new FleetAttributes();
  outcome?: SessionOutcome;
  /** Failover notices to append once the current step's tool results are in. */
  private readonly pendingNotices: string[] = [];
  private ended?: Ended;

  constructor(
    readonly sessionId: string,
    readonly input: SessionInput,
    earlier?: EarlierCarry,
  ) {
    this.carry = earlier ? upgradedCarry(earlier, input) : firstRunCarry(input);
    this.notes = new SessionNotes(sessionId, this.carry);
    this.activities = sessionActivities(input);
    this.budget = new SessionBudget(input, this.carry.budget);
    this.toolFilter = sessionToolFilter(input);
    this.telemetry = new StepTelemetry(sessionId, input.model);
    this.delegations = new Delegations(sessionId, input, this.budget, this.activities.readDelegation, this.carry.delegation, this.toolFilter);
    const settings = resolveCompactionSettings(input.contextWindow, input.compaction, { landWithRoom: patched(LAND_WITH_ROOM_PATCH) });
    const summarize = billedSummaries(this.activities.summarize, (request) => ({ ...request, ...this.activityContext() }), this.budget, (spend) => {
      this.compaction.billSummary(spend);
      countSummaryCalls(input.model, spend);
    });
    const compactionActivities = { ...this.activities, summarize };
    this.seqs = new SeqAllocator(this.carry);
    this.compaction = new CompactionController(sessionId, input.model, settings, cachePricesOf(input.prices), compactionActivities, this.seqs, this.carry.compaction);
    this.transcript = new SessionTranscript(sessionId, settings, this.activities.storeMessages, this.compaction, this.seqs, this.carry);
    this.manual = new ManualCompactionQueue(this.carry, () => this.compactContext(CompactionRequest.manual), () => this.carry.step);
    this.approval = new ApprovalGate(sessionId, input, this.budget, this.manual, () => this.publish());
    this.affinity = new WorkspaceAffinity(sessionId, input, this.activities, (warning, notice) => this.warnAndTell(warning, notice), this.carry.affinity);
    this.messages = new TurnMessages(input, this.carry, this.transcript, this.manual, () => this.publish(), (message) => this.notes.warn(message));
  }

  get status(): SessionStatus {
    if (this.ended) return this.ended;
    if (this.approval.waitingForApproval) return SessionStatus.waitingForApproval;
    return this.messages.waiting ? SessionStatus.waitingForMessage : SessionStatus.running;
  }

  get finished(): boolean {
    return this.ended !== undefined;
  }

  get turnOpen(): boolean {
    return this.carry.turnOpen;
  }

  get turnLimitReached(): boolean {
    return this.carry.turn >= this.input.maxTurns;
  }

  /** True when this run's history is big enough that the session should go on in a fresh run. */
  get historyFull(): boolean {
    const info = workflowInfo();
    const budget = this.input.continueAsNew;
    return info.continueAsNewSuggested || info.historyLength >= budget.maxHistoryEvents || info.historySize >= budget.maxHistoryBytes;
  }

  position(): SessionPosition {
    return { turn: this.carry.turn, step: this.carry.step };
  }

  /** Stores the pinned system prompt and the task, opening turn 1. */
  async open(): Promise<void> {
    const info = workflowInfo();
    // The first store claims the id's rows for this run: a reused id must never replay another session's transcript.
    const claim = { firstRunId: info.firstExecutionRunId, replace: info.memo?.[REPLACE_CLOSED_MEMO] === true };
    await this.transcript.store(
      [
        // The system prompt belongs to no turn; the task opens turn 1.
        { message: { role: 'system', content: this.input.systemPrompt }, turn: 0, pinned: true },
        { message: { role: 'user', content: this.input.task }, turn: 1, pinned: true },
      ],
      claim,
    );
    this.carry.turn = 1;
    this.carry.turnOpen = true;
  }

  beginStep(): void {
    this.carry.step += 1;
    this.telemetry.begin(this.carry.step);
  }

  /** The agent's reply: its spend, its place in the context; without tool calls it ends the turn. */
  recordReply(reply: CallModelResult): MaybePending {
    const usage = this.carry.usage;
    usage.modelCalls += 1;
    usage.promptTokens += reply.usage.promptTokens;
    usage.completionTokens += reply.usage.completionTokens;
    const billed = this.budget.recordAgentCall(reply.usage, reply.toolCalls, reply.possiblyBilledCalls ?? 0);
    return thenRun(this.transcript.addReply(reply.measure), () => this.noteReply(reply, billed));
  }

  private noteReply(reply: CallModelResult, billed: CallSpend): void {
    this.interrupt.noteReply(reply);
    this.affinity.noteModelHost(reply.hostId);
    this.telemetry.noteReply(reply.toolCalls.length, billed);
    this.delegations.noteReply(reply.toolCalls);
    if (reply.droppedToolCalls) {
      const declared = reply.toolCalls.length + reply.droppedToolCalls;
      this.warnAndTell(
        `step ${this.carry.step}: the reply declared ${declared} tool calls; ${reply.droppedToolCalls} past maxToolCallsPerReply ${this.input.maxToolCallsPerReply} were not run`,
        tooManyToolCallsNotice(declared, reply.toolCalls.length),
      );
    }
    if (reply.toolCalls.length === 0) this.answered(reply.text ?? '', reply.measure.seq);
  }

  /** Runs one declared tool call of the reply stored under `callSeq`, on the workspace's host; a `delegate` call's child first. */
  runTool(call: ToolCall, callSeq: number): Promise<RunToolResult> {
    const seq = this.seqs.next();
    this.interrupt.noteStarted(call, seq);
    const { toolTimeoutSeconds: timeoutSeconds, toolOutputCapChars: outputCapChars, toolOutputStoredChars: storedOutputChars } = this.input;
    const toolInput = { sessionId: this.sessionId, seq, callSeq, toolCallId: call.id, timeoutSeconds, outputCapChars, storedOutputChars, ...this.activityContext() };
    // A tool module may mark a write quick; inside a lost workflow task it would run again, so it stays on a queue (DESIGN §8).
    if (call.effect !== 'delegate') return this.affinity.runTool(toolInput, call.quick === true && call.effect === 'read');
    return this.delegations.run(call, callSeq, seq, this.carry.step).then((delegated) => this.affinity.runTool({ ...toolInput, ...(delegated ? { delegated } : {}) }, false));
  }

  recordToolResult(result: RunToolResult): MaybePending {
    return thenRun(this.transcript.addToolResult(result.measure), () => this.noteToolResult(result));
  }

  private noteToolResult(result: RunToolResult): void {
    this.notes.toolCall({
      step: this.carry.step,
      name: result.toolName,
      seq: result.measure.seq,
      isError: result.isError,
      ...(result.error ? { error: result.error } : {}),
    });
    this.telemetry.noteToolResult(result.toolName, result.isError);
    if (result.finished) this.answered(result.finished.answer, result.measure.seq);
  }

  /** After an interrupt cut the step off: its record, then the turn goes on or waits for a message. */
  async recordInterruption(request: InterruptRequest): Promise<void> {
    await this.interrupt.record(
      {
        transcript: this.transcript,
        seqs: this.seqs,
        position: () => this.position(),
        noteInterruptedCall: (name, seq) => this.notes.toolCall({ step: this.carry.step, name, seq, isError: true, error: 'interrupted' }),
        warn: (message) => this.notes.warn(message),
      },
      request,
    );
    this.telemetry.noteInterrupted();
    if (request.continue) return;
    this.carry.turnOpen = false;
    this.carry.heldForMessage = true;
  }

  /** The step's notices go in after its results: a message between a call and its result would make the request invalid. */
  endStep(): MaybePending {
    const notices = this.pendingNotices.splice(0).map((content) => ({ message: { role: 'user' as const, content }, turn: this.carry.turn, step: this.carry.step }));
    return thenRun(notices.length > 0 ? this.transcript.store(notices) : undefined, () => {
      this.telemetry.end(this.position());
      if (this.fleet.dueAtStepEnd(this.status)) this.publish();
    });
  }

  /** Brings the session's search attributes in step with its state (only what changed is written). */
  publish(): void {
    this.fleet.publish({
      status: this.status,
      step: this.carry.step,
      contextFill: this.compaction.estimate(this.carry.ledger) / this.input.contextWindow,
      costUsd: this.budget.spend().costUsd,
    });
  }

  /**
   * The whole state for the next run, once this run is quiet: a queued manual compaction is served
   * first (its `compactNow` caller is waiting), then every handler is let finish.
   */
  async carryForward(): Promise<SessionCarry> {
    await this.manual.serveIfRequested();
    await condition(allHandlersFinished);
    return nextRunCarry(this.carry);
  }

  /** Ends the session with `outcome`; the answer says why when the agent gave none. */
  finish(outcome: SessionOutcome, budgetReason?: string): void {
    this.outcome = outcome;
    this.ended = SessionStatus.completed;
    if (outcome === SessionOutcome.budgetExhausted) this.carry.answer = { text: `stopped: ${budgetReason ?? 'budget exhausted'}` };
    if (outcome === SessionOutcome.stepLimit) this.carry.answer = { text: `stopped after ${this.carry.step} steps (maxSteps ${this.budget.maxSteps})` };
    if (outcome === SessionOutcome.turnLimit) this.notes.warn(`a message arrived after the last allowed turn (maxTurns ${this.input.maxTurns}); it was not answered`);
    this.publish();
  }

  /** Marks the session failed, so the `state` query says why, and returns the failure to throw. */
  fail(message: string, type: string, cause?: Error): ApplicationFailure {
    this.ended = SessionStatus.failed;
    this.notes.warn(message);
    this.publish();
    return ApplicationFailure.create({ message, type, nonRetryable: true, cause });
  }

  /** Marks the session cancelled for the `state` query; the cancellation itself goes on up. */
  cancelled(error: unknown): unknown {
    this.ended = SessionStatus.cancelled;
    this.publish();
    return error;
  }

  /** Validator of `compactNow`: refuses what cannot be served. */
  validateCompactNow(): void {
    if (this.finished) throw refusedUpdate(`session ${this.sessionId} is ${this.status}; nothing to compact`);
    if (this.compaction.running) throw refusedUpdate(`session ${this.sessionId} is already compacting`);
  }

  /** What the pure policy decides about the live context now (DESIGN §5). */
  decideCompaction(requestedBy: CompactionRequest): Decision {
    return this.compaction.decide(this.transcript.entries, requestedBy, this.carry.step);
  }

  /** Carries out `decision` (by default what the policy decides now) and adopts the result. */
  async compactContext(requestedBy: CompactionRequest, decision = this.decideCompaction(requestedBy)) {
    const at = this.position();
    const outcome = await this.telemetry.compaction(this.compaction.notices, () => this.compaction.carryOut(this.transcript.entries, decision, at));
    this.transcript.adopt(outcome.ledger);
    return { ...outcome, decision };
  }

  /** What every model and tool activity of the step is told besides its own input: the session's tools and the step's trace. */
  activityContext(): { tools?: ToolFilter; trace?: StepTrace } {
    const trace = this.telemetry.trace;
    return { ...(this.toolFilter ? { tools: this.toolFilter } : {}), ...(trace ? { trace } : {}) };
  }

  private answered(text: string, seq: number): void {
    this.carry.answer = { text, seq };
    this.carry.turnOpen = false;
  }

  /** A warning for the state query, and optionally a notice the model reads after this step's results. */
  private warnAndTell(warning: string, notice?: string): void {
    this.notes.warn(warning);
    if (notice !== undefined) this.pendingNotices.push(notice);
  }
}
