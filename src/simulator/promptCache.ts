/**
 * A plausible prompt cache for the simulator: a request reuses the tokens of the prefix it shares
 * with the previous request of the same conversation (tools, then whole messages), which the
 * answer reports as `usage.prompt_tokens_details.cached_tokens`, as OpenAI does.
 */
import type { ChatMessage, ToolSpec } from '../model/messages';
import { messageTokens, toolTokens } from './tokenMemo';
import { shortHash } from './hash';

/** Conversations remembered; the oldest is forgotten first, so a long benchmark stays bounded. */
const CONVERSATIONS_KEPT = 1000;

interface Seen {
  readonly tools: string;
  readonly messages: readonly string[];
}

export class PromptCache {
  private readonly seen = new Map<string, Seen>();

  /** Cached tokens of this request, and remember it as its conversation's latest. */
  lookup(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
    // The system prompt and the task identify a conversation: every request of a session starts with them.
    const key = shortHash(JSON.stringify(messages.slice(0, 2)));
    const current: Seen = { tools: JSON.stringify(tools), messages: messages.map((message) => JSON.stringify(message)) };
    const previous = this.seen.get(key);
    this.seen.delete(key);
    this.seen.set(key, current);
    if (this.seen.size > CONVERSATIONS_KEPT) this.seen.delete(this.seen.keys().next().value as string);
    if (!previous || previous.tools !== current.tools) return 0;
    let tokens = toolTokens(tools);
    for (let index = 0; index < messages.length && index < previous.messages.length; index += 1) {
      if (previous.messages[index] !== current.messages[index]) break;
      tokens += messageTokens(messages[index] as ChatMessage);
    }
    return tokens;
  }
}
