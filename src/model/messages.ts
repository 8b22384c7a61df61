/** The OpenAI chat message shapes agentd stores and sends; pure schema, no I/O. */
import { z } from 'zod';

export const ToolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type ChatRole = ChatMessage['role'];

/** The JSON schema of one tool as the chat completions API takes it. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
