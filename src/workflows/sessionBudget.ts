/**
 * A session's spend and budget inside the workflow: the spend ledger (agent and summary calls
 * apart), the limits in force, the run of identical tool calls, approvals, and the pause a tripped
 * guard puts the session in. The rules themselves are pure and live in `src/policy/budget.ts`.
 */
import {
  addPossiblyBilled,
  addSpend,
  approvalProblem,
  cacheHitRatio,
  ApproveRequestSchema,
  checkBudget,
  extendRepeat,
  NO_REPEAT,
  NO_SPEND,
  reportSpend,
  sumSpend,
  totalCost,
  totalTokens,
  withApproval,
  type ApproveRequest,
  type BudgetUse,
  type BudgetVerdict,
  type CallSpend,
  type CallTokens,
} from '../policy';
import type { SessionInput } from '../session/input';
import type { BudgetReport, PauseReport, SpendReport } from '../session/state';
import type { BudgetCarry } from './sessionCarry';

export class SessionBudget {
  /** Not carried: continue-as-new happens only between steps, never during a pause. */
  private pause?: PauseReport;

  constructor(
    private readonly input: SessionInput,
    /** This run's slice of the session carry, changed in place. */
    private readonly carried: BudgetCarry,
  ) {}

  get maxSteps(): number {
    return this.carried.limits.maxSteps;
  }

  /** Approvals so far; the session waits for this number to grow. */
  get approvals(): number {
    return this.carried.approvals;
  }

  get paused(): PauseReport | undefined {
    return this.pause ? { ...this.pause } : undefined;
  }

  /**
   * One reply of the agent: its tokens, and its tool calls for the repeated-call guard;
   * `possiblyBilledCalls` when an earlier attempt of the request may have been answered and lost.
   * Returns what this call alone cost.
   */
  recordAgentCall(usage: CallTokens, toolCalls: ReadonlyArray<{ name: string; fingerprint?: string }>, possiblyBilledCalls = 0): CallSpend {
    const billed = addPossiblyBilled(addSpend(NO_SPEND, usage, this.input.prices), possiblyBilledCalls);
    this.carried.agentSpend = sumSpend(this.carried.agentSpend, billed);
    this.carried.repeat = extendRepeat(this.carried.repeat, toolCalls);
    return billed;
  }

  /**
   * Summary calls are billed too, kept apart from the agent's own: accepted and rejected ones
   * alike, and requests that may have been billed without their answer reaching us. Returns what
   * these calls alone cost, priced as the ledger prices them, for the compaction's notice.
   */
  recordSummary(usage: CallTokens, calls: number, possiblyBilledCalls = 0): CallSpend {
    const billed = addPossiblyBilled(calls > 0 ? addSpend(NO_SPEND, usage, this.input.prices, calls) : { ...NO_SPEND }, possiblyBilledCalls);
    this.carried.summarySpend = sumSpend(this.carried.summarySpend, billed);
    return billed;
  }

  /** What an ended child spent (its own children's included), billed to this session. */
  recordDelegate(spend: CallSpend): void {
    this.carried.delegateSpend = sumSpend(this.carried.delegateSpend ?? NO_SPEND, spend);
  }

  /** What is left under the token and cost limits; a limit the session does not have is left out. */
  remaining(steps: number): { tokens?: number; costUsd?: number } {
    const use = this.use(steps);
    const { maxTotalTokens, maxCostUsd } = this.carried.limits;
    return {
      ...(maxTotalTokens !== undefined ? { tokens: maxTotalTokens - use.totalTokens } : {}),
      ...(maxCostUsd !== undefined ? { costUsd: maxCostUsd - use.costUsd } : {}),
    };
  }

  check(steps: number): BudgetVerdict {
    return checkBudget(this.use(steps), this.carried.limits);
  }

  pauseFor(verdict: Extract<BudgetVerdict, { kind: 'exceeded' }>, now: number, timeoutMs: number): void {
    this.pause = {
      guard: verdict.guard,
      reason: verdict.reason,
      since: new Date(now).toISOString(),
      until: new Date(now + timeoutMs).toISOString(),
    };
  }

  endPause(): void {
    this.pause = undefined;
  }

  /** Why `request` would leave the session exhausted at `steps`, if it would. */
  approvalProblem(steps: number, request: ApproveRequest): string | undefined {
    return approvalProblem(this.use(steps), this.carried.limits, request);
  }

  /** Raises the limits and restarts the repeated-call count. */
  approve(request: ApproveRequest | undefined): BudgetReport {
    this.carried.limits = withApproval(this.carried.limits, ApproveRequestSchema.parse(request ?? {}));
    this.carried.repeat = { ...NO_REPEAT };
    this.carried.approvals += 1;
    return this.report();
  }

  report(): BudgetReport {
    return { ...this.carried.limits, approvalTimeoutSeconds: this.input.approvalTimeoutSeconds, approvals: this.carried.approvals };
  }

  spend(): SpendReport {
    const { agentSpend, summarySpend, delegateSpend } = this.carried;
    const all = this.ledgers();
    return {
      agent: reportSpend(agentSpend),
      summary: reportSpend(summarySpend),
      ...(delegateSpend ? { delegates: reportSpend(delegateSpend) } : {}),
      totalTokens: totalTokens(...all),
      costUsd: totalCost(...all),
      cacheHitRatio: cacheHitRatio(
        all.reduce((sum, spend) => sum + spend.cachedTokens, 0),
        all.reduce((sum, spend) => sum + spend.promptTokens, 0),
      ),
      ...(this.input.prices ? { price: { ...this.input.prices } } : {}),
    };
  }

  /** The session's own calls, and its children's once one has ended. */
  private ledgers(): CallSpend[] {
    const { agentSpend, summarySpend, delegateSpend } = this.carried;
    return delegateSpend ? [agentSpend, summarySpend, delegateSpend] : [agentSpend, summarySpend];
  }

  private use(steps: number): BudgetUse {
    const all = this.ledgers();
    return { steps, totalTokens: totalTokens(...all), costUsd: totalCost(...all), repeat: this.carried.repeat };
  }
}
