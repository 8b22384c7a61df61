/**
 * A session's spend and budget inside the workflow: the spend ledger (agent and summary calls
 * apart), the limits in force, the run of identical tool calls, approvals, and the pause a tripped
 * guard puts the session in. The rules themselves are pure and live in `src/policy/budget.ts`.
 */
import {
  approvalProblem,
  ApproveRequestSchema,
  checkBudget,
  extendRepeat,
  NO_REPEAT,
  withApproval,
  type ApproveRequest,
  type BudgetLimits,
  type BudgetUse,
  type BudgetVerdict,
  type RepeatRun,
} from '../policy/budget';
import { addPossiblyBilled, addSpend, NO_SPEND, totalCost, totalTokens, type CallSpend, type CallTokens } from '../policy/spend';
import type { SessionInput } from '../session/input';
import type { BudgetReport, PauseReport, SpendReport } from '../session/state';

/** Spend and budget state carried through continue-as-new. */
export interface BudgetCarry {
  limits: BudgetLimits;
  agentSpend: CallSpend;
  summarySpend: CallSpend;
  repeat: RepeatRun;
  approvals: number;
}

export class SessionBudget {
  private limits: BudgetLimits;
  private agentSpend: CallSpend = { ...NO_SPEND };
  private summarySpend: CallSpend = { ...NO_SPEND };
  private repeat: RepeatRun = { ...NO_REPEAT };
  private approvalCount = 0;
  private pause?: PauseReport;

  constructor(
    private readonly input: SessionInput,
    carry?: BudgetCarry,
  ) {
    this.limits = carry?.limits ?? {
      maxSteps: input.maxSteps,
      maxRepeatedToolCalls: input.maxRepeatedToolCalls,
      ...(input.maxTotalTokens !== undefined ? { maxTotalTokens: input.maxTotalTokens } : {}),
      ...(input.maxCostUsd !== undefined ? { maxCostUsd: input.maxCostUsd } : {}),
    };
    if (carry) {
      this.agentSpend = carry.agentSpend;
      this.summarySpend = carry.summarySpend;
      this.repeat = carry.repeat;
      this.approvalCount = carry.approvals;
    }
  }

  get maxSteps(): number {
    return this.limits.maxSteps;
  }

  /** Approvals so far; the session waits for this number to grow. */
  get approvals(): number {
    return this.approvalCount;
  }

  get paused(): PauseReport | undefined {
    return this.pause ? { ...this.pause } : undefined;
  }

  /** One reply of the agent: its tokens, and its tool calls for the repeated-call guard. */
  recordAgentCall(usage: CallTokens, toolCalls: ReadonlyArray<{ name: string; fingerprint?: string }>): void {
    this.agentSpend = addSpend(this.agentSpend, usage, this.input.prices);
    this.repeat = extendRepeat(this.repeat, toolCalls);
  }

  /**
   * Summary calls are billed too, kept apart from the agent's own: accepted and rejected ones
   * alike, and requests that may have been billed without their answer reaching us.
   */
  recordSummary(usage: CallTokens, calls: number, possiblyBilledCalls = 0): void {
    if (calls > 0) this.summarySpend = addSpend(this.summarySpend, usage, this.input.prices, calls);
    this.summarySpend = addPossiblyBilled(this.summarySpend, possiblyBilledCalls);
  }

  check(steps: number): BudgetVerdict {
    return checkBudget(this.use(steps), this.limits);
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
    return approvalProblem(this.use(steps), this.limits, request);
  }

  /** Raises the limits and restarts the repeated-call count. */
  approve(request: ApproveRequest | undefined): BudgetReport {
    this.limits = withApproval(this.limits, ApproveRequestSchema.parse(request ?? {}));
    this.repeat = { ...NO_REPEAT };
    this.approvalCount += 1;
    return this.report();
  }

  report(): BudgetReport {
    return { ...this.limits, approvalTimeoutSeconds: this.input.approvalTimeoutSeconds, approvals: this.approvalCount };
  }

  spend(): SpendReport {
    return {
      agent: { ...this.agentSpend },
      summary: { ...this.summarySpend },
      totalTokens: totalTokens(this.agentSpend, this.summarySpend),
      costUsd: totalCost(this.agentSpend, this.summarySpend),
      ...(this.input.prices ? { price: { ...this.input.prices } } : {}),
    };
  }

  carry(): BudgetCarry {
    return {
      limits: { ...this.limits },
      agentSpend: { ...this.agentSpend },
      summarySpend: { ...this.summarySpend },
      repeat: { ...this.repeat },
      approvals: this.approvalCount,
    };
  }

  private use(steps: number): BudgetUse {
    return {
      steps,
      totalTokens: totalTokens(this.agentSpend, this.summarySpend),
      costUsd: totalCost(this.agentSpend, this.summarySpend),
      repeat: this.repeat,
    };
  }
}
