/**
 * The `agentSession` workflow: one agent session as a loop of turns and steps (DESIGN §3). Each
 * step decides on compaction, compacts, calls the model, runs the tools and records what they did;
 * between steps the session may go on in a fresh run. The parts live in `SessionRun`.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ContinueAsNew,
  continueAsNew,
  DeterminismViolationError,
  isCancellation,
  patched,
  setHandler,
  setWorkflowOptions,
  TemporalFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { CompactionRequest } from '../policy';
import { approveUpdate, compactNowUpdate, compactSignal, interruptUpdate, messageSignal, stateQuery } from '../session/definitions';
import { InvalidSessionInput, SessionInputError, type SessionInput } from '../session/input';
import { resolveRawSessionInput } from '../session/resolve';
import { sessionIdProblem } from '../session/sessionId';
import { SessionOutcome, type SessionResult } from '../session/state';
import { callModelWithinWindow } from './modelCall';
import type { EarlierCarry } from './sessionCarry';
import { SessionRun } from './sessionRun';
import { sessionState } from './sessionState';
import { runToolCalls } from './toolCallBatches';

/** The failure type of a session ended by a fault in the workflow code. */
export const SessionFault = 'SessionFault';

/** Marks histories whose last `compactNow` is served before the session ends; older ones left it open. */
const SERVE_COMPACT_NOW_AT_END_PATCH = 'serve-compact-now-at-end';

/** `carry` is set only by continue-as-new: the state of the previous run, never message bodies. */
export async function agentSession(rawInput: unknown, carry?: EarlierCarry): Promise<SessionResult> {
  const input = validated(rawInput);
  const run = new SessionRun(validatedId(workflowInfo().workflowId), input, carry);
  setHandler(stateQuery, () => sessionState(run));
  setHandler(messageSignal, (message) => run.messages.receive(message));
  setHandler(compactSignal, () => run.manual.request());
  setHandler(compactNowUpdate, () => run.manual.requestAndWait(), { validator: () => run.validateCompactNow() });
  setHandler(interruptUpdate, (request) => run.interrupt.interrupt(request), { validator: (request) => run.interrupt.validate(run.sessionId, request) });
  setHandler(approveUpdate, (request) => run.approval.approve(request), {
    validator: (request) => run.approval.validate(request, run.carry.step, run.status),
  });

  try {
    // At once, so a session started without attributes (stock CLI, Web UI) is listable from its first task.
    run.publish();
    if (!carry) await run.open();
    for (;;) {
      while (run.turnOpen) {
        const stop = run.approval.within(run.carry.step) ? undefined : await run.approval.pass(run.carry.step);
        if (stop) return await end(run, stop.outcome, stop.reason);
        await takeStep(run);
        if (run.historyFull) await continueAsNew<typeof agentSession>(input, await run.carryForward());
      }
      run.messages.keepLateSteering();
      if (!(await run.messages.awaitNext())) return await end(run, SessionOutcome.finished);
      if (run.turnLimitReached) return await end(run, SessionOutcome.turnLimit);
      await run.messages.startTurn();
    }
  } catch (error) {
    if (isCancellation(error)) throw run.cancelled(error);
    // Activities exhausted their retries or hit a final error: say why in the state, then fail.
    if (error instanceof ActivityFailure) {
      const cause = error.cause;
      const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'ActivityFailed';
      throw run.fail(`${error.activityType} failed: ${cause?.message ?? error.message}`, type, error);
    }
    if (error instanceof TemporalFailure || error instanceof ContinueAsNew || error instanceof DeterminismViolationError) throw error;
    // Anything else is a fault in this code or in what an activity returned (a worker of another
    // version): it would fail the same way on every retry of the task, so the session ends saying so.
    const fault = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw run.fail(`step ${run.carry.step}: the workflow code failed (${fault}); the session cannot go on`, SessionFault, error instanceof Error ? error : undefined);
  }
}

/**
 * An error a handler throws fails the session rather than the workflow task, which would retry the
 * same failure forever (DESIGN §6 "A fault ends the session"); a non-determinism error still retries.
 */
setWorkflowOptions({ failureExceptionTypes: [Error] }, agentSession);

/**
 * One step: decide, compact, call the model, run every tool call it declared, record each result.
 * What has nothing to do is skipped, not awaited: each promise in a workflow costs the SDK a stack
 * capture, and a fleet pays for every step (DESIGN §8, "A fleet at real model latency").
 */
async function takeStep(run: SessionRun): Promise<void> {
  run.beginStep();
  if (run.messages.steeringWaiting) await run.messages.takeSteering();
  if (run.manual.requested) await run.manual.serve();
  const decision = run.decideCompaction(CompactionRequest.auto);
  if (decision.kind !== 'none') await run.compactContext(CompactionRequest.auto, decision);
  const interrupted = await run.interrupt.guard(async () => {
    const reply = await callModelWithinWindow(run);
    const recording = run.recordReply(reply);
    if (recording) await recording;
    // Every declared call gets its result, even after `finish`: an unanswered call would make an
    // OpenAI-compatible server reject every later request of the session. Reads run side by side.
    await runToolCalls(run, reply.toolCalls, reply.measure.seq);
  });
  if (interrupted) await run.recordInterruption(interrupted);
  const ending = run.endStep();
  if (ending) await ending;
}

/**
 * Ends the session. A `compactNow` accepted during the last step is served first: its caller is
 * waiting for the answer, and a workflow that completes under an open update leaves it unanswered.
 */
async function end(run: SessionRun, outcome: SessionOutcome, budgetReason?: string): Promise<SessionResult> {
  if (run.manual.callerWaiting && patched(SERVE_COMPACT_NOW_AT_END_PATCH)) await run.manual.serve();
  run.finish(outcome, budgetReason);
  const { carry } = run;
  return {
    sessionId: run.sessionId,
    outcome,
    answer: carry.answer?.text ?? '',
    ...(carry.answer?.seq !== undefined ? { answerSeq: carry.answer.seq } : {}),
    turns: carry.turn,
    steps: carry.step,
    usage: { ...carry.usage },
    spend: run.budget.spend(),
    finalState: sessionState(run),
  };
}

/**
 * The workflow resolves and checks its input again: it may have been started by the stock `temporal`
 * CLI or the Web UI, which fill in nothing. A known model's window and price come from the same
 * plain-data table the client uses, so every way of starting gets the same session.
 */
function validated(rawInput: unknown): SessionInput {
  try {
    return resolveRawSessionInput(rawInput);
  } catch (error) {
    if (error instanceof SessionInputError) {
      throw ApplicationFailure.create({ message: error.message, type: InvalidSessionInput, nonRetryable: true });
    }
    throw error;
  }
}

/** A stock-CLI start can name any workflow id; one that cannot be a workspace folder fails here, before any activity. */
function validatedId(sessionId: string): string {
  const problem = sessionIdProblem(sessionId);
  if (problem === undefined) return sessionId;
  throw ApplicationFailure.create({ message: `invalid session input: sessionId: ${problem}`, type: InvalidSessionInput, nonRetryable: true });
}
