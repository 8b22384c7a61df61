/** OpenAI's error body and the handful of errors the simulator answers with. */

/** The exact shape OpenAI returns, so the openai client builds its typed errors from it. */
interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

/** An error response ready to send. */
export interface ErrorResponse {
  readonly status: number;
  readonly body: OpenAIErrorBody;
  readonly headers?: Readonly<Record<string, string>>;
}

export function invalidRequest(message: string, param: string | null, code: string | null = null): ErrorResponse {
  return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code } } };
}

export function notFound(message: string, code: string | null = null): ErrorResponse {
  return { status: 404, body: { error: { message, type: 'invalid_request_error', param: null, code } } };
}

/** The injected status faults, worded as OpenAI words them. */
export function injectedStatus(status: 429 | 500 | 503, retryAfterSeconds?: number): ErrorResponse {
  const headers = retryAfterSeconds === undefined ? undefined : { 'retry-after': String(retryAfterSeconds) };
  const error =
    status === 429
      ? { message: 'Rate limit reached for requests (simulated).', type: 'requests', param: null, code: 'rate_limit_exceeded' }
      : status === 500
        ? { message: 'The server had an error while processing your request (simulated).', type: 'server_error', param: null, code: null }
        : { message: 'The engine is currently overloaded, please try again later (simulated).', type: 'server_error', param: null, code: null };
  return headers === undefined ? { status, body: { error } } : { status, body: { error }, headers };
}
