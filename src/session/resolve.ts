/**
 * Filling in what a session input may leave out — a known model's window and price — and validating
 * the result. One function for every way a session starts: the client runs it before start (with the
 * operator's price overrides), and the workflow runs it again on its raw input, so a session started
 * by the stock `temporal` CLI or the Web UI gets the same defaults and the same errors. Pure and
 * deterministic: the table is plain data (model/modelTable.gen.ts), no Temporal client is loaded.
 */
import { knownContextWindow } from '../model/knownModels';
import { knownPrice, type PriceOverrides } from '../model/prices';
import { parseSessionInput, SessionInputError, type SessionInput, type SessionInputDraft } from './input';
import { userTextProblem } from './limits';
import { sessionIdProblem } from './sessionId';

/** A draft whose window may be left out when the model's window is known. */
export type SessionRequest = Omit<SessionInputDraft, 'contextWindow'> & { contextWindow?: number };

/** Fills the window and price of known models and validates; the error names the bad field. */
export function resolveSessionInput(request: SessionRequest, prices: PriceOverrides = {}): SessionInput {
  return parseSessionInput(withKnownModel(request, prices));
}

/** What a client checks before it starts a session; the workflow accepts oversized text (as a view), so the size limit is the client's. */
export interface StartChecks {
  /** Absent when the client makes one up (always a valid id). */
  readonly sessionId?: string;
  readonly maxUserTextBytes: number;
  readonly prices?: PriceOverrides;
}

/**
 * A start request checked in full before anything is sent: the id, the task's size, then the
 * whole input resolved. The error names the field.
 */
export function resolveStart(request: SessionRequest, checks: StartChecks): SessionInput {
  const idProblem = checks.sessionId === undefined ? undefined : sessionIdProblem(checks.sessionId);
  if (idProblem !== undefined) throw new SessionInputError(`invalid session input: sessionId: ${idProblem}`);
  const sizeProblem = userTextProblem(request.task, checks.maxUserTextBytes);
  if (sizeProblem !== undefined) throw new SessionInputError(`invalid session input: task: ${sizeProblem}`);
  return resolveSessionInput(request, checks.prices);
}

/** The same for input of unknown shape, as the workflow receives it from any client. */
export function resolveRawSessionInput(raw: unknown): SessionInput {
  return parseSessionInput(withKnownModel(raw, {}));
}

/** `raw` with a known model's window and price where they are absent; anything else is left to the schema. */
function withKnownModel(raw: unknown, prices: PriceOverrides): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const fields = raw as Record<string, unknown>;
  const model = typeof fields.model === 'string' ? fields.model.trim() : '';
  if (model === '') return raw;
  const filled: Record<string, unknown> = { ...fields };
  if (fields.contextWindow === undefined) {
    const contextWindow = knownContextWindow(model);
    if (contextWindow === undefined) {
      throw new SessionInputError(
        `invalid session input: contextWindow: model '${model}' has no known context window; ` +
          'declare the usable window (e.g. --context-window 32768, or "contextWindow": 32768 in the input)',
      );
    }
    filled.contextWindow = contextWindow;
  }
  if (fields.prices === undefined) {
    const price = knownPrice(model, prices);
    if (price !== undefined) filled.prices = price;
  }
  return filled;
}
