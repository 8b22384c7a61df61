/** Builds the chat.completion object OpenAI returns, from the script's reply. */
import type { ToolCall } from '../model/messages';
import { countMessageTokens } from '../model/tokens';
import { shortHash } from './hash';
import type { AssistantReply } from './script';

/** Fixed (2025-01-01T00:00:00Z) rather than the clock, so a repeated request gets the same bytes. */
export const SIM_CREATED = 1_735_689_600;

export interface ChatCompletionBody {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly [
    {
      readonly index: 0;
      readonly message: {
        readonly role: 'assistant';
        readonly content: string | null;
        readonly refusal: null;
        readonly tool_calls?: readonly ToolCall[];
      };
      readonly logprobs: null;
      readonly finish_reason: 'tool_calls' | 'stop' | 'length';
    },
  ];
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
    readonly prompt_tokens_details: { readonly cached_tokens: number };
  };
}

/**
 * `requestKey` is any string that identifies the request (the id is derived from it, so the
 * same request keeps the same id); `cutAtMaxTokens` reports the reply as stopped by max_tokens.
 */
export function completionBody(
  model: string,
  requestKey: string,
  reply: AssistantReply,
  promptTokens: number,
  cachedTokens = 0,
  cutAtMaxTokens = false,
): ChatCompletionBody {
  const completionTokens = countMessageTokens(reply);
  const calls = reply.tool_calls ?? [];
  const message =
    calls.length > 0
      ? { role: 'assistant' as const, content: reply.content, refusal: null, tool_calls: calls }
      : { role: 'assistant' as const, content: reply.content, refusal: null };
  return {
    id: `chatcmpl-sim-${shortHash(requestKey)}`,
    object: 'chat.completion',
    created: SIM_CREATED,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: cutAtMaxTokens ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop' }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: Math.min(cachedTokens, promptTokens) },
    },
  };
}
