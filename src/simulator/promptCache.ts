/**
 * A prompt cache like a hosted provider's: a request reuses the longest prefix (tools, then whole
 * messages) that any earlier request of the same conversation sent, counted from 1,024 tokens and
 * rounded down to a multiple of 128 as OpenAI documents it, and reported by the answer as
 * `usage.prompt_tokens_details.cached_tokens`. Only numbers naming the prefixes are kept, never their text.
 */
import type { ChatMessage, ToolSpec } from '../model/messages';
import { messageSeen, toolTokens } from './tokenMemo';
import { shortHash } from './hash';

/** OpenAI caches nothing of a prompt shorter than this. */
export const CACHE_MIN_TOKENS = 1024;
/** Cached tokens come in steps of this size. */
export const CACHE_STEP_TOKENS = 128;

/** Conversations remembered; the least recently used is forgotten first. */
const CONVERSATIONS_KEPT = 1000;
/**
 * Prefixes remembered per conversation, least recently sent forgotten first: a 120-step session
 * sends a few new ones per step, and a compaction a few hundred at most.
 */
const PREFIXES_PER_CONVERSATION = 4096;
/** Prefixes remembered over all conversations (~150 bytes each), so many long sessions stay within ~40 MB. */
const PREFIXES_KEPT = 250_000;

/** The cached tokens a provider reports for a shared prefix of `prefixTokens` tokens. */
export function cachedTokensOf(prefixTokens: number): number {
  if (prefixTokens < CACHE_MIN_TOKENS) return 0;
  return Math.floor(prefixTokens / CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS;
}

/** A prefix remembered: a number naming it (its extensions are keyed by it) and its tokens. */
interface Prefix {
  readonly id: number;
  readonly tokens: number;
}

export class PromptCache {
  /**
   * Conversation key → the prefixes it sent, each keyed by its parent prefix's id and its last
   * message's id → the prefix. A hash chain without hashing: message and prefix ids are never
   * reused, so a key names one exact prefix. Both maps are in least-recently-used order.
   */
  private readonly conversations = new Map<string, Map<string, Prefix>>();
  private lastPrefixId = 0;

  /** Cached tokens of this request; then its prefixes are remembered for the conversation's later requests. */
  lookup(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
    // The system prompt and the task identify a conversation: every request of a session starts with them.
    const conversation = shortHash(JSON.stringify(messages.slice(0, 2)));
    const seen = this.conversations.get(conversation) ?? new Map<string, Prefix>();
    this.conversations.delete(conversation);
    this.conversations.set(conversation, seen);

    // Tools come first in the prompt: the shortest prefix is the tool list alone.
    const path: Array<readonly [string, Prefix]> = [];
    let longest = 0;
    const step = (key: string, tokens: number): Prefix => {
      const known = seen.get(key);
      if (known !== undefined) longest = known.tokens;
      const prefix = known ?? { id: (this.lastPrefixId += 1), tokens };
      path.push([key, prefix]);
      return prefix;
    };
    let prefix = step(`tools ${shortHash(JSON.stringify(tools))}`, toolTokens(tools));
    for (const message of messages) {
      const { id, tokens } = messageSeen(message);
      prefix = step(`${prefix.id} ${id}`, prefix.tokens + tokens);
    }
    // Shortest prefixes last, so they are the freshest: a long prefix is never kept without its start.
    for (let index = path.length - 1; index >= 0; index -= 1) {
      const [key, remembered] = path[index] as readonly [string, Prefix];
      this.remember(seen, key, remembered);
    }
    this.forgetOldConversations(conversation);
    return cachedTokensOf(longest);
  }

  private remember(seen: Map<string, Prefix>, key: string, prefix: Prefix): void {
    seen.delete(key);
    seen.set(key, prefix);
    if (seen.size > PREFIXES_PER_CONVERSATION) seen.delete(seen.keys().next().value as string);
  }

  /** Drops least recently used conversations (never the current one) until both caps hold. */
  private forgetOldConversations(current: string): void {
    // Counted afresh (a thousand map sizes at most) rather than kept in step with every change by hand.
    let prefixesKept = 0;
    for (const seen of this.conversations.values()) prefixesKept += seen.size;
    for (const [key, seen] of this.conversations) {
      if (this.conversations.size <= CONVERSATIONS_KEPT && prefixesKept <= PREFIXES_KEPT) break;
      if (key === current) continue;
      this.conversations.delete(key);
      prefixesKept -= seen.size;
    }
  }
}
