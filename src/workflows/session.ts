/**
 * The state of one agent session and the bodies of its handlers: the ledger, counters and the
 * step that calls the model and runs tools. Runs in the workflow sandbox; I/O happens in activities.
 */
import { ApplicationFailure, condition, log } from '@temporalio/workflow';
import type { CallModelResult } from '../activities/types';
import type { ChatMessage } from '../model/messages';
import { ledgerTokens, type LedgerEntry, type MessageMeasure } from '../policy/ledger';
import { toSeqRuns } from '../policy/seqRuns';
import { MessageSignalSchema } from '../session/definitions';
import type { SessionInput } from '../session/input';
import {
  SessionOutcome,
  SessionStatus,
  type SessionResult,
  type SessionState,
  type ToolCallRecord,
  type UsageTotals,
} from '../session/state';
import { describeZodError } from '../session/validation';
import { sessionActivities } from './activityOptions';

const TOOL_CALLS_SHOWN = 10;
const WARNINGS_KEPT = 20;

export class AgentSession {
  private readonly activities;
  private readonly ledger: LedgerEntry[] = [];
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

  constructor(
    readonly sessionId: string,
    readonly input: SessionInput,
  ) {
    this.activities = sessionActivities(input);
  }

  get turnEnded(): boolean {
    return !this.turnOpen;
  }

  get stepLimitReached(): boolean {
    return this.step >= this.input.maxSteps;
  }

  get turnLimitReached(): boolean {
    return this.turn >= this.input.maxTurns;
  }

  /** Stores the pinned system prompt and the task, opening turn 1. */
  async open(): Promise<void> {
    await this.append(
      [
        { role: 'system', content: this.input.systemPrompt },
        { role: 'user', content: this.input.task },
      ],
      { turn: 0, pinned: true },
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

  /** Waits (up to the session's `awaitMessagesSeconds`) for a message; false when none came. */
  async awaitNextMessage(): Promise<boolean> {
    if (this.pendingMessages.length === 0 && this.input.awaitMessagesSeconds > 0) {
      this.status = SessionStatus.waitingForMessage;
      await condition(() => this.pendingMessages.length > 0, this.input.awaitMessagesSeconds * 1000);
      this.status = SessionStatus.running;
    }
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
    const reply = await this.callModel();
    this.usage.modelCalls += 1;
    this.usage.promptTokens += reply.usage.promptTokens;
    this.usage.completionTokens += reply.usage.completionTokens;
    this.record(reply.measure);

    if (reply.toolCalls.length === 0) {
      this.answer = { text: reply.text ?? '', seq: reply.measure.seq };
      this.turnOpen = false;
      return;
    }
    // Every declared call gets its result, even after `finish`: an unanswered call would make an
    // OpenAI-compatible server reject every later request of the session.
    for (const call of reply.toolCalls) {
      const result = await this.activities.runTool({
        sessionId: this.sessionId,
        seq: this.allocateSeq(),
        callSeq: reply.measure.seq,
        toolCallId: call.id,
        timeoutSeconds: this.input.toolTimeoutSeconds,
        outputCapChars: this.input.toolOutputCapChars,
      });
      this.record(result.measure);
      this.noteToolCall({ step: this.step, name: result.toolName, seq: result.measure.seq, isError: result.isError });
      if (result.finished) {
        this.answer = { text: result.finished.answer, seq: result.measure.seq };
        this.turnOpen = false;
      }
    }
  }

  end(outcome: SessionOutcome): SessionResult {
    this.outcome = outcome;
    this.status = SessionStatus.completed;
    if (outcome === SessionOutcome.stepLimit) {
      this.answer = { text: `stopped after ${this.step} steps (maxSteps ${this.input.maxSteps})` };
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
    return {
      sessionId: this.sessionId,
      status: this.status,
      model: this.input.model,
      turn: this.turn,
      step: this.step,
      maxSteps: this.input.maxSteps,
      maxTurns: this.input.maxTurns,
      context: { tokens: ledgerTokens(this.ledger), window: this.input.contextWindow, messages: this.ledger.length },
      usage: { ...this.usage },
      lastToolCalls: [...this.lastToolCalls],
      pendingMessages: this.pendingMessages.length,
      warnings: [...this.warnings],
      ...(this.outcome ? { outcome: this.outcome } : {}),
      ...(this.answer ? { answer: this.answer.text, ...(this.answer.seq !== undefined ? { answerSeq: this.answer.seq } : {}) } : {}),
    };
  }

  private callModel(): Promise<CallModelResult> {
    return this.activities.callModel({
      sessionId: this.sessionId,
      seq: this.allocateSeq(),
      context: toSeqRuns(this.ledger.map((entry) => entry.seq)),
      model: this.input.model,
      ...(this.input.maxOutputTokens ? { maxOutputTokens: this.input.maxOutputTokens } : {}),
    });
  }

  private async append(messages: ChatMessage[], where: { turn: number; pinned?: boolean }): Promise<void> {
    const measures = await this.activities.storeMessages({
      sessionId: this.sessionId,
      messages: messages.map((message) => ({ seq: this.allocateSeq(), message })),
    });
    for (const measure of measures) {
      this.ledger.push({ ...measure, turn: where.turn, step: 0, ...(where.pinned ? { pinned: true } : {}) });
    }
  }

  private record(measure: MessageMeasure): void {
    this.ledger.push({ ...measure, turn: this.turn, step: this.step });
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
