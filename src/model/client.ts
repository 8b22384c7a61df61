/** Builds the openai client the model activity uses; the API key never leaves the worker process. */
import OpenAI from 'openai';

export interface ModelClientOptions {
  baseURL?: string;
  apiKey?: string;
  /** Per-request limit; a hung endpoint then fails the attempt and Temporal retries it. @default 600000 */
  timeoutMs?: number;
}

export function createModelClient(options: ModelClientOptions): OpenAI {
  return new OpenAI({
    // Local OpenAI-compatible servers (vLLM, llama.cpp, the simulator) accept any key.
    apiKey: options.apiKey ?? 'no-key',
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    timeout: options.timeoutMs ?? 600_000,
    // Temporal retries the activity with backoff; retrying inside the SDK as well would hide outages.
    maxRetries: 0,
  });
}
