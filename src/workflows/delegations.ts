/**
 * A session's children (DESIGN §3 "Delegation"). Each `delegate` call of a reply starts a child
 * session: the same workflow, with its own window, compaction and workspace, and limits carved out
 * of this session's budget. The parent waits for the child's end and reads only its answer and its
 * files. Children run in the step's cancellable scope, so cancelling or interrupting the parent
 * reaches them; a child that fails is an error result for the parent, not the parent's failure.
 */
import {
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  TerminatedFailure,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { DelegationOutcome, DelegationRequest } from '../activities/delegationTypes';
import { carveChildBudget, childSessionId, delegationRefusal, sumSpend, NO_SPEND, type CallSpend, type ChildLimits, type ParentRoom } from '../policy';
import { REPLACE_CLOSED_MEMO } from '../session/definitions';
import { AgentdModel } from '../session/searchAttributes';
import { startSearchAttributes } from '../session/startAttributes';
import type { SessionInput, SessionInputDraft } from '../session/input';
import { SessionStatus, type ChildSessionReport, type DelegationReport, type SessionResult, type SpendReport } from '../session/state';
import type { ToolFilter } from '../session/toolFilter';
import type { SessionActivities } from './activityOptions';
import type { SessionBudget } from './sessionBudget';
import type { DelegationCarry } from './sessionCarry';
import type { ToolCall } from './toolCallBatches';

const CHILDREN_SHOWN = 20;
const TASK_HEAD_CHARS = 120;

export class Delegations {
  /** `delegate` calls of the step's reply that have not started yet. */
  private waiting = 0;
  private startedThisStep = 0;

  constructor(
    private readonly sessionId: string,
    private readonly input: SessionInput,
    private readonly budget: SessionBudget,
    private readonly readDelegation: SessionActivities['readDelegation'],
    /** This run's slice of the session carry, changed in place. */
    private readonly carried: DelegationCarry,
    private readonly toolFilter: ToolFilter | undefined,
  ) {}

  private get depth(): number {
    return this.input.delegatedBy?.depth ?? 0;
  }

  noteReply(toolCalls: readonly ToolCall[]): void {
    this.waiting = toolCalls.filter((call) => call.effect === 'delegate').length;
    this.startedThisStep = 0;
  }

  /** Starts the child of one `delegate` call stored under `seq`'s reply and waits for its end. */
  async run(call: ToolCall, callSeq: number, seq: number, step: number): Promise<DelegationOutcome> {
    // Counted before the first await: the calls of one reply start side by side.
    const refusal = delegationRefusal(this.input.delegation, this.depth, { thisStep: this.startedThisStep, inAll: this.carried.started });
    if (refusal !== undefined) {
      this.waiting -= 1;
      return { kind: 'refused', reason: refusal };
    }
    this.startedThisStep += 1;
    this.carried.started += 1;

    const read = await this.readDelegation({ sessionId: this.sessionId, callSeq, toolCallId: call.id, ...(this.toolFilter ? { tools: this.toolFilter } : {}) });
    // Carved in the order the reads come back, each an equal share of what is left among the calls not carved yet and the parent.
    const shares = Math.max(this.waiting, 1);
    this.waiting -= 1;
    if (!read.ok) return this.refusedAfterAll(read.problem);
    const carved = carveChildBudget(this.room(step), read.request, shares, this.input.delegation.childMaxSteps);
    if (carved.kind === 'refused') return this.refusedAfterAll(carved.reason);
    return this.runChild(childSessionId(this.sessionId, seq), read.request, carved.limits, step);
  }

  /** A call counted as starting a child that did not: its place is given back. */
  private refusedAfterAll(reason: string): DelegationOutcome {
    this.startedThisStep -= 1;
    this.carried.started -= 1;
    return { kind: 'refused', reason };
  }

  report(): DelegationReport | undefined {
    const parent = this.input.delegatedBy;
    if (parent === undefined && this.carried.started === 0) return undefined;
    return {
      depth: this.depth,
      ...(parent ? { parentSessionId: parent.sessionId } : {}),
      childrenStarted: this.carried.started,
      children: this.carried.children.map((child) => ({ ...child })),
    };
  }

  private async runChild(childId: string, request: DelegationRequest, limits: ChildLimits, step: number): Promise<DelegationOutcome> {
    const record: ChildSessionReport = { sessionId: childId, step, task: request.task.slice(0, TASK_HEAD_CHARS), status: SessionStatus.running };
    this.remember(record);
    const held = { tokens: limits.maxTotalTokens ?? 0, costUsd: limits.maxCostUsd ?? 0 };
    this.hold(held, 1);
    try {
      const result = await executeChild<(input: SessionInputDraft) => Promise<SessionResult>>('agentSession', {
        workflowId: childId,
        args: [childInput(this.input, request, limits, { sessionId: this.sessionId, depth: this.depth + 1 })],
        // Closing the parent any way at all cancels its children rather than leaving them running unwatched.
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        // The id is this parent's to give: rows left by a closed child of an earlier session with the parent's id are replaced.
        memo: { [REPLACE_CLOSED_MEMO]: true },
        // The model name only where the parent shows its own: a client that encrypts payloads leaves it out of the index.
        typedSearchAttributes: startSearchAttributes(workflowInfo().typedSearchAttributes.get(AgentdModel)),
      });
      const spend = spendOf(result.spend);
      this.budget.recordDelegate(spend);
      Object.assign(record, { status: SessionStatus.completed, outcome: result.outcome, steps: result.steps, totalTokens: tokensOf(spend), costUsd: spend.costUsd });
      return {
        kind: 'ended',
        childSessionId: childId,
        outcome: result.outcome,
        ...(result.answerSeq !== undefined ? { answerSeq: result.answerSeq } : { answer: result.answer }),
        answerCapChars: this.input.delegation.answerCapChars,
        steps: result.steps,
        totalTokens: tokensOf(spend),
        costUsd: spend.costUsd,
        ...(result.finalState?.workspace ? { workspaceHost: result.finalState.workspace.hostId } : {}),
      };
    } catch (error) {
      // The parent's own cancellation or interrupt goes on up; a child cancelled on its own is its failure.
      if (isCancellation(error) && CancellationScope.current().consideredCancelled) {
        record.status = SessionStatus.cancelled;
        throw error;
      }
      if (!(error instanceof ChildWorkflowFailure)) throw error;
      record.status = isCancellation(error) ? SessionStatus.cancelled : SessionStatus.failed;
      return { kind: 'failed', childSessionId: childId, reason: failureReason(error) };
    } finally {
      this.hold(held, -1);
    }
  }

  /** What may still be given: the budget's remainder less what running children hold. */
  private room(step: number): ParentRoom {
    const left = this.budget.remaining(step);
    return {
      maxSteps: this.budget.maxSteps,
      ...(left.tokens !== undefined ? { tokens: left.tokens - this.carried.held.tokens } : {}),
      ...(left.costUsd !== undefined ? { costUsd: left.costUsd - this.carried.held.costUsd } : {}),
    };
  }

  private hold(limits: { tokens: number; costUsd: number }, sign: 1 | -1): void {
    this.carried.held.tokens += sign * limits.tokens;
    this.carried.held.costUsd += sign * limits.costUsd;
  }

  private remember(record: ChildSessionReport): void {
    this.carried.children.push(record);
    if (this.carried.children.length > CHILDREN_SHOWN) this.carried.children.shift();
  }
}

/**
 * The child's input: the parent's settings, its own task and limits, one turn, and no pause for an
 * approval nobody is watching for (a child over budget ends and says so).
 */
function childInput(input: SessionInput, request: DelegationRequest, limits: ChildLimits, delegatedBy: { sessionId: string; depth: number }): SessionInputDraft {
  const { maxTotalTokens: _tokens, maxCostUsd: _cost, tools: parentTools, delegatedBy: _parent, ...inherited } = input;
  const tools = request.tools ?? parentTools;
  return {
    ...inherited,
    task: request.task,
    maxSteps: limits.maxSteps,
    ...(limits.maxTotalTokens !== undefined ? { maxTotalTokens: limits.maxTotalTokens } : {}),
    ...(limits.maxCostUsd !== undefined ? { maxCostUsd: limits.maxCostUsd } : {}),
    ...(tools !== undefined ? { tools } : {}),
    maxTurns: 1,
    awaitMessagesSeconds: 0,
    approvalTimeoutSeconds: 0,
    delegatedBy,
  };
}

/** Why a child ended without an answer, in words the model can act on. */
function failureReason(error: ChildWorkflowFailure): string {
  const cause = error.cause;
  if (cause instanceof TerminatedFailure) return 'it was terminated (by an operator or by Temporal)';
  if (cause instanceof CancelledFailure) return 'it was cancelled by an operator';
  if (cause instanceof TimeoutFailure) return 'it timed out';
  return cause?.message || error.message;
}

/** A child's whole spend as one ledger: its own calls, its summaries and its children's. */
function spendOf(report: SpendReport | undefined): CallSpend {
  if (report === undefined) return { ...NO_SPEND };
  return [report.agent, report.summary, ...(report.delegates ? [report.delegates] : [])].reduce<CallSpend>((sum, part) => sumSpend(sum, part), { ...NO_SPEND });
}

function tokensOf(spend: CallSpend): number {
  return spend.promptTokens + spend.completionTokens;
}
