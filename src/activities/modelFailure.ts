/**
 * Turns what the openai client throws into the failures Temporal should act on: overflow and other
 * request errors are final, 429/5xx/timeouts retry, honouring the server's Retry-After.
 */
import { ApplicationFailure } from '@temporalio/activity';
import OpenAI from 'openai';
import { isContextOverflow } from '../model/overflow';
import { ActivityFailureType } from './types';

/** Statuses that mean "try again later" rather than "this request is wrong". */
const RETRYABLE_STATUSES = new Set([408, 409, 429]);

export function toModelFailure(error: unknown): ApplicationFailure {
  if (error instanceof OpenAI.APIConnectionError) {
    return ApplicationFailure.create({
      type: ActivityFailureType.modelUnavailable,
      message: `model endpoint unreachable: ${error.message}`,
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    if (isContextOverflow(error.code, error.message)) {
      return ApplicationFailure.create({
        type: ActivityFailureType.contextOverflow,
        message: `context overflow: ${error.message}`,
        nonRetryable: true,
        cause: error,
      });
    }
    if (status >= 500 || RETRYABLE_STATUSES.has(status)) {
      return ApplicationFailure.create({
        type: ActivityFailureType.modelUnavailable,
        message: `model endpoint answered ${status}: ${error.message}`,
        nextRetryDelay: retryAfter(error.headers),
        cause: error,
      });
    }
    return ApplicationFailure.create({
      type: ActivityFailureType.modelRequestRejected,
      message: `model endpoint rejected the request (${status}): ${error.message}`,
      nonRetryable: true,
      cause: error,
    });
  }
  return ApplicationFailure.create({
    type: ActivityFailureType.modelUnavailable,
    message: `model call failed: ${error instanceof Error ? error.message : String(error)}`,
    cause: error instanceof Error ? error : undefined,
  });
}

/** Retry-After in seconds or as an HTTP date; undefined lets the retry policy's backoff decide. */
function retryAfter(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
