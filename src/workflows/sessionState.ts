/** What the `state` query answers: the session as its parts see it now. */
import type { SessionState } from '../session/state';
import type { SessionRun } from './sessionRun';

export function sessionState(run: SessionRun): SessionState {
  const { carry, input, budget } = run;
  const workspace = run.affinity.report();
  const delegation = run.delegations.report();
  const lastManual = run.manual.lastReport;
  // A pause ends with the session: a cancelled or failed one waits for no approval.
  const paused = run.approval.waitingForApproval && !run.finished ? budget.paused : undefined;
  return {
    sessionId: run.sessionId,
    status: run.status,
    runs: carry.runs,
    model: input.model,
    turn: carry.turn,
    step: carry.step,
    maxSteps: budget.maxSteps,
    maxTurns: input.maxTurns,
    context: { tokens: run.compaction.estimate(carry.ledger), window: input.contextWindow, messages: carry.ledger.length },
    usage: { ...carry.usage },
    spend: budget.spend(),
    budget: budget.report(),
    ...(paused ? { paused } : {}),
    compaction: { ...run.compaction.report(), ...(lastManual ? { lastManual } : {}) },
    lastToolCalls: [...carry.lastToolCalls],
    pendingMessages: carry.pendingMessages.length + carry.steeringMessages.length,
    ...(workspace ? { workspace } : {}),
    ...(delegation ? { delegation } : {}),
    warnings: [...carry.warnings],
    ...(run.outcome ? { outcome: run.outcome } : {}),
    ...(carry.answer ? { answer: carry.answer.text, ...(carry.answer.seq !== undefined ? { answerSeq: carry.answer.seq } : {}) } : {}),
  };
}
