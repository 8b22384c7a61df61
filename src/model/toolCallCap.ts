/**
 * The most tool calls one reply may have run (issue 26: a reply with 10,000 calls made Temporal refuse
 * the step's activities forever). Pure: the model activity cuts the reply before storing it, and the
 * workflow tells the model what was left out.
 */
import type { ChatMessage, ToolCall } from './messages';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

export interface CappedReply {
  /** The reply as the session keeps it: its first `maxCalls` tool calls. */
  readonly reply: AssistantMessage;
  /** The calls past the cap, in order, kept beside the reply so nothing the model said is lost. */
  readonly dropped: readonly ToolCall[];
}

/**
 * Cuts the reply to its first `maxCalls` calls. The dropped calls leave the message itself: every
 * call the conversation keeps needs a tool result, and thousands of error results would fill the
 * window themselves.
 */
export function capToolCalls(reply: AssistantMessage, maxCalls: number | undefined): CappedReply {
  const calls = reply.tool_calls ?? [];
  if (maxCalls === undefined || calls.length <= maxCalls) return { reply, dropped: [] };
  return { reply: { ...reply, tool_calls: calls.slice(0, maxCalls) }, dropped: calls.slice(maxCalls) };
}
