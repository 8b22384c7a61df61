/**
 * Token counting with gpt-tokenizer (o200k_base). Runs in activities and the simulator only: the
 * tokenizer is large and slow to load inside the workflow sandbox, which just adds the numbers.
 */
import { countTokens } from 'gpt-tokenizer';
import type { ChatMessage, ToolSpec } from './messages';

/**
 * Longest piece of text handed to the tokenizer at once. Its merge step is quadratic in the length
 * of one pre-token, and a run without whitespace (minified code, a hash dump, a model that repeats
 * one letter) is a single pre-token: counted whole, 40,000 such characters hold the worker's main
 * thread for 1.5 s, and 190,000 for about 40 s. In pieces the cost is linear in the text.
 */
const PIECE_CHARS = 512;

/**
 * Tokens of `text`, counted in pieces of at most PIECE_CHARS characters. A piece ends at the last
 * space after a word in its second half, where the tokenizer starts a new pre-token anyway, so text
 * with spaces counts as it does whole; a longer run without one is cut mid-run and may count a token
 * more per cut (`npm run bench -- --only=counting` measures both on real text).
 */
export function countTextTokens(text: string): number {
  if (text.length <= PIECE_CHARS) return countTokens(text);
  let total = 0;
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    total += countTokens(text.slice(start, end));
    start = end;
  }
  return total;
}

const SPACE = 32;

function pieceEnd(text: string, start: number): number {
  const limit = start + PIECE_CHARS;
  if (limit >= text.length) return text.length;
  for (let at = limit; at > start + PIECE_CHARS / 2; at -= 1) {
    if (text.charCodeAt(at) === SPACE && !/\s/.test(text.charAt(at - 1))) return at;
  }
  // A cut mid-run must not split a surrogate pair into two characters the tokenizer cannot read.
  const beforeCut = text.charCodeAt(limit - 1);
  return beforeCut >= 0xd800 && beforeCut <= 0xdbff ? limit - 1 : limit;
}

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
