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

const counted = new Map<string, number>();
let charsKept = 0;
const toolsCounted = new Map<string, number>();

/** countMessageTokens, remembered by the message's JSON text (exact, so no two messages collide). */
export function messageTokens(message: ChatMessage): number {
  const key = JSON.stringify(message);
  let tokens = counted.get(key);
  if (tokens === undefined) {
    tokens = countMessageTokens(message);
    charsKept += key.length;
    for (const oldest of counted.keys()) {
      if (charsKept <= CHARS_KEPT) break;
      counted.delete(oldest);
      charsKept -= oldest.length;
    }
  } else {
    counted.delete(key);
  }
  counted.set(key, tokens);
  return tokens;
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
