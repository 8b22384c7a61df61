/**
 * Errors from the client API turned into the status and the words the CLI uses for them, so an
 * operator reads the same reason in the browser as in `agentd approve` or `agentd send`.
 */
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { NoWorkerAnsweredError } from '../client/sessionClient';
import { SessionListFilterError } from '../client/sessionList';
import { SessionInputError } from '../session/input';

export interface ApiFailure {
  readonly status: number;
  readonly error: string;
}

/** Bad input from the page: refused before anything reaches Temporal. */
export class ConsoleInputError extends Error {
  override readonly name = 'ConsoleInputError';
}

export function failureOf(error: unknown): ApiFailure {
  if (error instanceof ConsoleInputError || error instanceof SessionInputError || error instanceof SessionListFilterError) return { status: 400, error: error.message };
  if (error instanceof WorkflowNotFoundError) return { status: 404, error: `no session ${error.workflowId ?? ''}`.trimEnd() };
  // The workflow's validator said no (not paused, a limit still exhausted): its reason, as `agentd approve` prints it.
  if (error instanceof WorkflowUpdateFailedError) return { status: 409, error: `refused: ${error.cause?.message ?? error.message}` };
  if (error instanceof WorkflowFailedError) return { status: 409, error: `session failed: ${error.cause?.message ?? error.message}` };
  if (error instanceof NoWorkerAnsweredError) return { status: 503, error: error.message };
  const message = error instanceof Error ? error.message : String(error);
  if (/TransportError|UNAVAILABLE|ECONNREFUSED|Failed to connect|tcp connect error/i.test(message)) {
    return { status: 503, error: `cannot reach the Temporal server (${message})` };
  }
  return { status: 500, error: message };
}
