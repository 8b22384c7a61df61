/**
 * The `agentSession` workflow: one agent session as a loop of turns and steps (DESIGN §3).
 * Handlers first, then the loop; state and handler bodies live in `AgentSession`.
 */
import { ActivityFailure, ApplicationFailure, continueAsNew, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { approveUpdate, compactNowUpdate, compactSignal, messageSignal, stateQuery } from '../session/definitions';
import { InvalidSessionInput, SessionInputError, type SessionInput } from '../session/input';
import { resolveRawSessionInput } from '../session/resolve';
import { sessionIdProblem } from '../session/sessionId';
import { SessionOutcome, type SessionResult } from '../session/state';
import { AgentSession, type SessionCarry } from './session';

/** `carry` is set only by continue-as-new: the state of the previous run, never message bodies. */
export async function agentSession(rawInput: unknown, carry?: SessionCarry): Promise<SessionResult> {
  const input = validated(rawInput);
  const sessionId = validatedId(workflowInfo().workflowId);
  const session = new AgentSession(sessionId, input, carry);
  setHandler(stateQuery, () => session.state());
  setHandler(messageSignal, (message) => session.receive(message));
  setHandler(compactSignal, () => session.requestCompaction());
  setHandler(compactNowUpdate, () => session.compactNow(), { validator: () => session.validateCompactNow() });
  setHandler(approveUpdate, (request) => session.approve(request), { validator: (request) => session.validateApprove(request) });

  try {
    if (!carry) await session.open();
    for (;;) {
      while (!session.turnEnded) {
        const exhausted = await session.guardBudget();
        if (exhausted) return await session.end(exhausted);
        await session.takeStep();
        if (session.historyFull) await continueAsNew<typeof agentSession>(input, await session.carryForward());
      }
      if (!(await session.awaitNextMessage())) return await session.end(SessionOutcome.finished);
      if (session.turnLimitReached) return await session.end(SessionOutcome.turnLimit);
      await session.startTurn();
    }
  } catch (error) {
    if (isCancellation(error)) throw session.cancelled(error);
    // Activities exhausted their retries or hit a final error: say why in the state, then fail.
    if (error instanceof ActivityFailure) {
      const cause = error.cause;
      const type = cause instanceof ApplicationFailure && cause.type ? cause.type : 'ActivityFailed';
      throw session.fail(`${error.activityType} failed: ${cause?.message ?? error.message}`, type, error);
    }
    throw error;
  }
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
