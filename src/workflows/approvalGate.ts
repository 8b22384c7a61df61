/**
 * The approval gate before each model call: when a budget guard has tripped, the session pauses in
 * `waiting_for_approval` until update `approve` raises the budget or `approvalTimeoutSeconds` pass.
 */
import { ApplicationFailure, log, patched } from '@temporalio/workflow';
import { ApproveRequestSchema, BudgetGuard, type ApproveRequest } from '../policy';
import type { SessionInput } from '../session/input';
import { SessionOutcome, SessionStatus, type ApproveResult } from '../session/state';
import { describeZodError } from '../session/validation';
import type { SessionBudget } from './sessionBudget';
import type { ManualCompactionQueue } from './manualCompactionQueue';

/** Marks histories written by code that pauses on a tripped budget guard; older ones ended at maxSteps. */
const BUDGET_PAUSE_PATCH = 'budget-guards-pause';

/** Why the session must end on its budget: the outcome, and the reason for its answer. */
export interface BudgetStop {
  outcome: typeof SessionOutcome.stepLimit | typeof SessionOutcome.budgetExhausted;
  reason: string;
}

export class ApprovalGate {
  private waiting = false;

  constructor(
    private readonly sessionId: string,
    private readonly input: SessionInput,
    private readonly budget: SessionBudget,
    private readonly manual: ManualCompactionQueue,
    /** Called when the session's status changes here, so its search attributes follow. */
    private readonly statusChanged: () => void = () => undefined,
  ) {}

  get waitingForApproval(): boolean {
    return this.waiting;
  }

  /** True when no budget guard has tripped at `step`: the session goes on without `pass`. */
  within(step: number): boolean {
    return this.budget.check(step).kind === 'within';
  }

  /**
   * Before a model call at `step`: undefined to go on, or the stop to end with. Histories from
   * before the pause existed ended at once.
   */
  async pass(step: number): Promise<BudgetStop | undefined> {
    for (;;) {
      const verdict = this.budget.check(step);
      if (verdict.kind === 'within') return undefined;
      const outcome = verdict.guard === BudgetGuard.steps ? SessionOutcome.stepLimit : SessionOutcome.budgetExhausted;
      if (this.input.approvalTimeoutSeconds === 0 || !patched(BUDGET_PAUSE_PATCH)) return { outcome, reason: verdict.reason };
      const seen = this.budget.approvals;
      const timeoutMs = this.input.approvalTimeoutSeconds * 1000;
      this.budget.pauseFor(verdict, Date.now(), timeoutMs);
      this.waiting = true;
      this.statusChanged();
      log.warn('budget guard tripped; waiting for approval', { sessionId: this.sessionId, reason: verdict.reason });
      const approved = await this.manual.waitUntil(() => this.budget.approvals > seen, timeoutMs);
      this.budget.endPause();
      this.waiting = false;
      // Not approved: the session ends, and its end publishes the final status.
      if (!approved) return { outcome, reason: `${verdict.reason}; not approved within ${this.input.approvalTimeoutSeconds} s` };
      this.statusChanged();
    }
  }

  /** Validator of `approve`: only a paused session, and only limits that let it go on at `step`. */
  validate(request: ApproveRequest | undefined, step: number, status: SessionStatus): void {
    if (status !== SessionStatus.waitingForApproval) throw refusedUpdate(`session ${this.sessionId} is ${status}, not waiting_for_approval`);
    const parsed = ApproveRequestSchema.safeParse(request ?? {});
    if (!parsed.success) throw refusedUpdate(`invalid approval: ${describeZodError(parsed.error)}`);
    const problem = this.budget.approvalProblem(step, parsed.data);
    if (problem) throw refusedUpdate(problem);
  }

  /** Handler of `approve`: raises the limits, restarts the repeated-call count, lets the loop go on. */
  approve(request: ApproveRequest | undefined): ApproveResult {
    return { budget: this.budget.approve(request) };
  }
}

/** A refused update: final, so the stock CLI and the Web UI do not show it as retryable. */
export function refusedUpdate(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: 'UpdateRefused', nonRetryable: true });
}
