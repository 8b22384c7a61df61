/** A stored message as the plain text `read_output` pages through. Pure. */
import type { ChatMessage } from './messages';

/**
 * A tool output or a user or system message is its content; an assistant reply is its text followed
 * by each tool call, name and arguments as sent (so a cut `write_file` body can be read whole).
 */
export function messageText(message: ChatMessage): string {
  if (message.role !== 'assistant' || (message.tool_calls?.length ?? 0) === 0) return message.content ?? '';
  const calls = (message.tool_calls ?? []).map((call) => `[tool call ${call.id}: ${call.function.name}]\n${call.function.arguments}`);
  return [message.content ?? '', ...calls].filter((part) => part !== '').join('\n');
}
