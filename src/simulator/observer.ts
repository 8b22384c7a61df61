/** A hook that sees every request the simulator answered, for benchmarks that read what was sent. */
import type { ChatMessage } from '../model/messages';

/** One answered chat completion request: the messages exactly as the client sent them. */
export interface ObservedRequest {
  /** 0-based index among all chat completion requests, rejected ones included. */
  readonly index: number;
  readonly messages: readonly ChatMessage[];
  /** The prompt tokens the simulator counted (and reported as usage). */
  readonly promptTokens: number;
  /** Of those, the tokens its prompt cache served (reported as `prompt_tokens_details.cached_tokens`). */
  readonly cachedTokens: number;
  /** True for a compaction's summarization request. */
  readonly summarizing: boolean;
}

/** Called synchronously before the answer is sent; it must not throw or keep the messages' memory long. */
export type RequestObserver = (request: ObservedRequest) => void;
