/**
 * Interrupting the step in flight (update `interrupt`, DESIGN §3). The step's model call and tool
 * calls run in a cancellable scope; an interrupt cancels it, and since those activities heartbeat
 * they stop within seconds. Every tool call of the reply that has no result then gets one saying it
 * was interrupted with its effect unknown, as a crash leaves a write, so the next request is valid
 * and nothing is run again.
 */
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { CallModelResult } from '../activities/types';
import { interruptedToolOutput, interruptNotice } from '../model/noticeFormat';
import { InterruptRequestSchema, type InterruptRequest, type InterruptResult } from '../session/definitions';
import { describeZodError } from '../session/validation';
import { refusedUpdate } from './approvalGate';
import type { SeqAllocator } from './seqAllocator';
import type { SessionTranscript } from './sessionTranscript';
import type { ToolCall } from './toolCallBatches';

/** What recording an interruption touches in the session run. */
export interface InterruptedStepParts {
  readonly transcript: SessionTranscript;
  readonly seqs: SeqAllocator;
  /** The turn and step the synthetic results and the notice belong to. */
  position(): { turn: number; step: number };
  /** A cut-off call in the state's recent tool calls. */
  noteInterruptedCall(name: string, seq: number): void;
  warn(message: string): void;
}

export class StepInterrupt {
  /**
   * One scope serves step after step until an interrupt cancels it: a fresh scope per step would cost
   * the SDK several promises each time and leave a handler on the session's root scope.
   */
  private scope?: CancellationScope;
  /** A step's model call or tool calls run inside the scope. */
  private guarding = false;
  private request?: InterruptRequest;
  private result?: InterruptResult;
  /** The tool calls the step's reply declared, once it is recorded. */
  private declared?: readonly ToolCall[];
  /** The seq each tool call of the step started under: a late result of the cancelled attempt lands on the same row. */
  private readonly startedSeqs = new Map<string, number>();

  /**
   * Validator of `interrupt`: only a step whose model call or tool calls run can be cut off, and the
   * request is checked as the CLI checks it (the stock CLI sends whatever it is given).
   */
  validate(sessionId: string, raw: unknown): void {
    const parsed = InterruptRequestSchema.safeParse(raw);
    if (!parsed.success) throw refusedUpdate(`invalid interrupt: ${describeZodError(parsed.error)}`);
    if (!this.guarding) throw refusedUpdate(`session ${sessionId} has no model call or tool call in flight; nothing to interrupt`);
    if (this.request !== undefined) throw refusedUpdate(`session ${sessionId} is already being interrupted (${this.request.reason})`);
  }

  /** Handler of `interrupt` (after `validate`): cuts the step off, and answers once it is recorded. */
  async interrupt(raw: unknown): Promise<InterruptResult> {
    this.request = InterruptRequestSchema.parse(raw);
    if (this.guarding) this.scope?.cancel();
    await condition(() => this.result !== undefined);
    const result = this.result!;
    this.result = undefined;
    this.request = undefined;
    return result;
  }

  /** Runs the step's model call and tool calls; the interrupt that cut them off, if one did. */
  async guard(work: () => Promise<void>): Promise<InterruptRequest | undefined> {
    const scope = (this.scope ??= new CancellationScope({ cancellable: true }));
    this.guarding = true;
    this.declared = undefined;
    this.startedSeqs.clear();
    try {
      await scope.run(work);
      return undefined;
    } catch (error) {
      // The session's own cancellation (agentd cancel) goes on up as before.
      if (this.request !== undefined && isCancellation(error) && !CancellationScope.current().consideredCancelled) return this.request;
      throw error;
    } finally {
      this.guarding = false;
      if (scope.consideredCancelled) this.scope = undefined;
    }
  }

  noteReply(reply: CallModelResult): void {
    this.declared = reply.toolCalls;
  }

  noteStarted(call: ToolCall, seq: number): void {
    this.startedSeqs.set(call.id, seq);
  }

  /**
   * After `guard` returned `request`: a result for every declared call that has none, then the notice
   * the model reads. Answers the `interrupt` caller.
   */
  async record(parts: InterruptedStepParts, request: InterruptRequest): Promise<void> {
    const { turn, step } = parts.position();
    const answered = new Set(parts.transcript.entries.map((entry) => entry.answers));
    const unanswered = (this.declared ?? []).filter((call) => !answered.has(call.id));
    const results = unanswered.map((call) => ({
      seq: this.startedSeqs.get(call.id) ?? parts.seqs.next(),
      message: { role: 'tool' as const, tool_call_id: call.id, content: interruptedToolOutput(call.name, request.reason) },
    }));
    const stored = results.length === 0 ? [] : await parts.transcript.storeAt(results.map(({ seq, message }) => ({ seq, message, turn, step })));
    stored.forEach((seq, index) => parts.noteInterruptedCall(unanswered[index]!.name, seq));
    const cut = this.declared === undefined ? 'the model call' : unanswered.map((call) => call.name).join(', ') || 'nothing left';
    parts.warn(`step ${step} interrupted by the operator (${cut} cut off): ${request.reason}`);
    await parts.transcript.store([{ message: { role: 'user', content: interruptNotice(step, cut, request.reason) }, turn, step }]);
    this.result = { step, cut, continued: request.continue === true };
  }
}
