/** Token usage of a chat completion as the endpoint reported it. */
import type OpenAI from 'openai';
import type { ModelUsage } from './types';

/** Tokens as the endpoint reported them; cached tokens only when it says (OpenAI's `prompt_tokens_details`). */
export function usageOf(completion: OpenAI.Chat.Completions.ChatCompletion): ModelUsage {
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: completion.usage?.prompt_tokens ?? 0,
    completionTokens: completion.usage?.completion_tokens ?? 0,
    ...(typeof cached === 'number' ? { cachedTokens: cached } : {}),
  };
}
