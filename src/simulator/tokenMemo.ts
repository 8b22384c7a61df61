/**
 * Token counts of messages the simulator has seen, remembered: every request of a conversation
 * resends all earlier messages, and counting them again (twice: the strict window check and the
 * prompt cache) made the zero-latency model cost several ms of the worker's CPU per step, charged
 * to agentd in the overhead benchmark. The counts stay exact; only the repeated work goes.
 */
import type { ChatMessage, ToolSpec } from '../model/messages';
import { countMessageTokens, countPromptTokens, countToolTokens } from '../model/tokens';

/** Characters of message text remembered, oldest forgotten first: more than one long session resends, ~32 MB at most. */
const CHARS_KEPT = 32_000_000;

/** A message text seen: its tokens, and a number no other text gets (the prompt cache's name for it). */
interface Seen {
  readonly tokens: number;
  readonly id: number;
}

const counted = new Map<string, Seen>();
let charsKept = 0;
let lastId = 0;
const toolsCounted = new Map<string, number>();

/**
 * The message's tokens and its id, remembered by its JSON text (exact, so no two messages collide).
 * Ids are never reused: a text forgotten and seen again gets a new one, which only costs the prompt
 * cache a miss, as an eviction would at a provider.
 */
export function messageSeen(message: ChatMessage): Seen {
  const key = JSON.stringify(message);
  let seen = counted.get(key);
  if (seen === undefined) {
    lastId += 1;
    seen = { tokens: countMessageTokens(message), id: lastId };
    charsKept += key.length;
    for (const oldest of counted.keys()) {
      if (charsKept <= CHARS_KEPT) break;
      counted.delete(oldest);
      charsKept -= oldest.length;
    }
  } else {
    counted.delete(key);
  }
  counted.set(key, seen);
  return seen;
}

/** countMessageTokens, remembered. */
export function messageTokens(message: ChatMessage): number {
  return messageSeen(message).tokens;
}

/** countToolTokens, remembered: a worker sends the same tool list with every request. */
export function toolTokens(tools: readonly ToolSpec[]): number {
  const key = JSON.stringify(tools);
  let tokens = toolsCounted.get(key);
  if (tokens === undefined) {
    tokens = countToolTokens(tools);
    if (toolsCounted.size >= 100) toolsCounted.clear();
    toolsCounted.set(key, tokens);
  }
  return tokens;
}

/** countPromptTokens over the remembered counts. */
export function promptTokens(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
  return countPromptTokens(messages, tools, messageTokens, toolTokens);
}
