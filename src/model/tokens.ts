/**
 * Tokens of chat messages, tool lists and whole requests, as a strict endpoint counts them, from
 * `countTextTokens`. Runs in activities and the simulator only: the tokenizer is large and slow to
 * load inside the workflow sandbox, which just adds the numbers.
 */
import { countTextTokens } from './textTokens';
import type { ChatMessage, ToolSpec } from './messages';

/** Role markers and separators the chat format adds around every message. */
export const PER_MESSAGE_OVERHEAD_TOKENS = 4;
/** Priming tokens the chat format adds once per request for the assistant's reply. */
const PER_REQUEST_OVERHEAD_TOKENS = 3;

/** Tokens one message weighs in a prompt, tool-call names and arguments included. */
export function countMessageTokens(message: ChatMessage): number {
  let tokens = PER_MESSAGE_OVERHEAD_TOKENS + countTextTokens(message.content ?? '');
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      tokens += countTextTokens(call.function.name) + countTextTokens(call.function.arguments) + 3;
    }
  }
  return tokens;
}

/** Tokens the tool list weighs in a prompt. */
export function countToolTokens(tools: readonly ToolSpec[]): number {
  return tools.length === 0 ? 0 : countTextTokens(JSON.stringify(tools));
}

/** Tokens of a whole request as a strict endpoint counts them; the counters may be memoized ones. */
export function countPromptTokens(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
  countMessage: (message: ChatMessage) => number = countMessageTokens,
  countTools: (tools: readonly ToolSpec[]) => number = countToolTokens,
): number {
  let tokens = PER_REQUEST_OVERHEAD_TOKENS + countTools(tools);
  for (const message of messages) tokens += countMessage(message);
  return tokens;
}

/** Characters of a message body, tool-call arguments included. */
export function countMessageChars(message: ChatMessage): number {
  let chars = (message.content ?? '').length;
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) chars += call.function.arguments.length;
  }
  return chars;
}
