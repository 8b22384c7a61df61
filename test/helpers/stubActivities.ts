/**
 * Stub activities for workflow tests: the real `Activities` shapes over a fake, deterministic store
 * of measures (seq, role, tokens, chars), no model and no workspace. The agent's replies and the
 * summarizer's answers follow a script, and every call is recorded, so a test can say what the
 * workflow asked for as well as what it ended with.
 *
 * The prompt tokens a reply reports are counted from the measures of the context the workflow sent
 * (tokens plus a per-message framing, plus the tool schemas), the way a server would: the policy's
 * estimate, anchored on them, sees the context grow as steps add tool results.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../../src/activities';
import { ActivityFailureType, type SummaryRejectedDetails } from '../../src/activities/types';
import type { MessageMeasure } from '../../src/policy/ledger';
import { fromSeqRuns, type SeqRun } from '../../src/policy/seqRuns';

/** The framing a message costs beyond its content, as the workflow's default settings count it. */
export const STUB_MESSAGE_OVERHEAD = 4;
/** What the tool definitions add to every request. */
export const STUB_TOOL_SCHEMA_TOKENS = 200;

/** What the agent does at one model call. */
export type ModelMove =
  /** One tool call (a distinct one each time: the repeated-call guard never trips). */
  | { kind: 'tool' }
  /** A reply with no tool calls: the turn ends with this text. */
  | { kind: 'answer'; text: string }
  /** The endpoint refuses the request as over the window (non-retryable ContextOverflow). */
  | { kind: 'overflow' };

/** What the summarizer does at one attempt. */
export type SummaryMove =
  | { kind: 'ok' }
  /** A non-retryable SummaryRejected (its details say what the rejected answer cost). */
  | { kind: 'reject'; reason: SummaryRejectedDetails['reason'] }
  /** A retryable ModelUnavailable: the workflow's retry policy tries again, up to its attempts. */
  | { kind: 'unavailable' };

export interface ModelCallRecord {
  /** The nth distinct reply seq: the session's step as the stub sees it (a retried call keeps its seq). */
  step: number;
  seq: number;
  /** What the request weighed, counted from the measures of its context. */
  promptTokens: number;
  messages: number;
  move: ModelMove['kind'];
}

export interface SummaryCallRecord {
  /** The nth distinct summary seq: one compaction, whatever its attempts. */
  compaction: number;
  attempt: number;
  seq: number;
  regionMessages: number;
  budgetTokens: number;
  move: SummaryMove['kind'];
}

export interface StubScript {
  /** The agent's move at step `step`; `calls` are this step's calls so far, this one last (a retry after an overflow adds one). */
  model(step: number, calls: ModelCallRecord[], stub: StubActivities): ModelMove;
  /** Hold the reply of step `step` until `release()`, so a test can look at the state in between (once a session). */
  holdAt?(step: number, stub: StubActivities): boolean;
  /** The summarizer's move at attempt `attempt` of compaction `compaction` (both 1-based). @default always ok */
  summary?(compaction: number, attempt: number): SummaryMove;
  /** Tokens of every tool result. @default 1500 (6000 chars: under pruneMinChars, so only a summary or a truncation helps) */
  toolResultTokens?: number;
}

const REPLY_TOKENS = { tool: 60, answer: 30 } as const;
const SUMMARY_TOKENS = 300;
const MEMORY_TOKENS = 120;

/** One session's worth of stub activities and what they were called with. */
export class StubActivities {
  readonly modelCalls: ModelCallRecord[] = [];
  readonly summaryCalls: SummaryCallRecord[] = [];
  readonly memoryStores: number[] = [];
  readonly cuts: number[] = [];
  readonly toolRuns: number[] = [];
  /** Seqs a request named that no activity had stored: a workflow bug, asserted empty by the tests. */
  readonly unknownSeqs: number[] = [];
  private readonly measures = new Map<number, MessageMeasure>();
  private holding?: { step: number; release: () => void };
  private heldWaiters: Array<(step: number) => void> = [];
  private readonly replySeqs: number[] = [];
  private readonly summarySeqs: number[] = [];

  constructor(
    private readonly script: StubScript,
    /** The queue `claimWorkspace` hands out: the test worker's own, so tool calls come back to it. */
    private readonly taskQueue: string,
  ) {}

  /** The activities to register, typed against the real ones. */
  activities(): Activities {
    return {
      storeMessages: async (input) =>
        input.messages.map(({ seq, message }) => {
          const chars = typeof message.content === 'string' ? message.content.length : 0;
          return this.keep({ seq, role: message.role, tokens: Math.max(1, Math.ceil(chars / 4)), chars });
        }),
      callModel: async (input) => {
        if (!this.replySeqs.includes(input.seq)) this.replySeqs.push(input.seq);
        const step = this.replySeqs.indexOf(input.seq) + 1;
        if (!this.holding && this.script.holdAt?.(step, this)) await this.hold(step);
        const seqs = fromSeqRuns(input.context);
        const record: ModelCallRecord = { step, seq: input.seq, promptTokens: this.promptTokens(input.context), messages: seqs.length, move: 'tool' };
        const move = this.script.model(step, [...this.modelCalls.filter((call) => call.step === step), record], this);
        record.move = move.kind;
        this.modelCalls.push(record);
        if (move.kind === 'overflow') {
          throw ApplicationFailure.create({
            type: ActivityFailureType.contextOverflow,
            message: `stub endpoint: ${record.promptTokens} prompt tokens are over the window`,
            nonRetryable: true,
          });
        }
        const toolCall = move.kind === 'tool' ? [{ id: `call-${input.seq}`, name: 'read_file', fingerprint: `fp-${input.seq}` }] : [];
        const tokens = REPLY_TOKENS[move.kind];
        const measure = this.keep({
          seq: input.seq,
          role: 'assistant',
          tokens,
          chars: tokens * 4,
          ...(toolCall.length > 0 ? { declares: toolCall.map((call) => call.id) } : {}),
        });
        return {
          measure,
          toolCalls: toolCall,
          ...(move.kind === 'answer' ? { text: move.text } : {}),
          usage: { promptTokens: record.promptTokens, completionTokens: tokens },
          toolSchemaTokens: STUB_TOOL_SCHEMA_TOKENS,
          replayed: false,
        };
      },
      runTool: async (input) => {
        this.toolRuns.push(input.seq);
        const tokens = this.script.toolResultTokens ?? 1500;
        const measure = this.keep({ seq: input.seq, role: 'tool', tokens, chars: tokens * 4, answers: input.toolCallId });
        return { measure, toolName: 'read_file', isError: false, replayed: false };
      },
      cutToolResults: async (input) =>
        input.views.map((view) => {
          this.cuts.push(view.sourceSeq);
          const source = this.measureOf(view.sourceSeq);
          const chars = Math.min(source?.chars ?? 0, view.headChars + view.tailChars + 80);
          return this.keep({ ...(source ?? { role: 'tool' }), seq: view.viewSeq, chars, tokens: Math.ceil(chars / 4) });
        }),
      summarize: async (input) => {
        if (!this.summarySeqs.includes(input.seq)) this.summarySeqs.push(input.seq);
        const compaction = this.summarySeqs.indexOf(input.seq) + 1;
        const attempt = Context.current().info.attempt;
        const move = this.script.summary?.(compaction, attempt) ?? { kind: 'ok' };
        const region = fromSeqRuns(input.region);
        this.summaryCalls.push({ compaction, attempt, seq: input.seq, regionMessages: region.length, budgetTokens: input.budgetTokens, move: move.kind });
        const usage = { promptTokens: this.promptTokens([...input.pinned, ...input.region]), completionTokens: SUMMARY_TOKENS };
        if (move.kind === 'reject') {
          const details: SummaryRejectedDetails = { usage, calls: 1, possiblyBilledCalls: 0, reason: move.reason };
          throw ApplicationFailure.create({
            type: ActivityFailureType.summaryRejected,
            message: `stub summarizer: the answer was rejected (${move.reason})`,
            nonRetryable: true,
            details: [details],
          });
        }
        if (move.kind === 'unavailable') {
          throw ApplicationFailure.create({ type: ActivityFailureType.modelUnavailable, message: 'stub summarizer: endpoint unavailable' });
        }
        const tokens = Math.min(SUMMARY_TOKENS, input.budgetTokens);
        const measure = this.keep({ seq: input.seq, role: 'user', tokens, chars: tokens * 4 });
        const memory =
          input.memorySeq === undefined
            ? undefined
            : this.keep({ seq: input.memorySeq, role: 'user', tokens: Math.min(MEMORY_TOKENS, input.memoryBudgetTokens ?? MEMORY_TOKENS), chars: MEMORY_TOKENS * 4 });
        return { measure, ...(memory ? { memory } : {}), usage, calls: 1, possiblyBilledCalls: 0 };
      },
      storeSessionMemory: async (input) => {
        this.memoryStores.push(input.memorySeq);
        const tokens = Math.min(MEMORY_TOKENS, input.budgetTokens);
        return this.keep({ seq: input.memorySeq, role: 'user', tokens, chars: tokens * 4 });
      },
      claimWorkspace: async () => ({ hostId: 'stub-host', taskQueue: this.taskQueue }),
      readDelegation: async () => ({ ok: false, problem: 'the stub activities start no children' }),
    };
  }

  /** Resolves with the step once a reply is held (see `StubScript.holdAt`). */
  held(): Promise<number> {
    if (this.holding) return Promise.resolve(this.holding.step);
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  /** Lets the held reply go. */
  release(): void {
    this.holding?.release();
  }

  /** Distinct compactions that asked the summarizer (a retried attempt is the same one). */
  get compactions(): number {
    return this.summarySeqs.length;
  }

  /** Model calls of the agent (not the summarizer), retries included. */
  get agentCalls(): number {
    return this.modelCalls.length;
  }

  /** The largest request the agent's model was sent. */
  get maxPromptTokens(): number {
    return Math.max(0, ...this.modelCalls.map((call) => call.promptTokens));
  }

  private hold(step: number): Promise<void> {
    return new Promise((resolve) => {
      this.holding = { step, release: resolve };
      for (const waiter of this.heldWaiters.splice(0)) waiter(step);
    });
  }

  private promptTokens(context: readonly SeqRun[]): number {
    let total = STUB_TOOL_SCHEMA_TOKENS;
    for (const seq of fromSeqRuns(context)) total += (this.measureOf(seq)?.tokens ?? 0) + STUB_MESSAGE_OVERHEAD;
    return total;
  }

  private measureOf(seq: number): MessageMeasure | undefined {
    const measure = this.measures.get(seq);
    if (!measure) this.unknownSeqs.push(seq);
    return measure;
  }

  private keep(measure: MessageMeasure): MessageMeasure {
    this.measures.set(measure.seq, measure);
    return measure;
  }
}
