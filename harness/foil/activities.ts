/**
 * The foil's activities: the same openai client, endpoint and built-in tools as agentd's worker,
 * but bodies go in and out through Temporal instead of a transcript store.
 */
import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import { ChatMessageSchema } from '../../src/model/messages';
import type { ToolRegistry } from '../../src/tools/registry';
import { runToolCall } from '../../src/tools/runToolCall';
import { detectSandboxFromEnv } from '../../src/worker/sandboxFromConfig';
import { ensureWorkspace } from '../../src/tools/workspace';
import type { AssistantMessage, FoilCallModelInput, FoilRunToolInput, FoilToolResult } from './types';

export interface FoilDeps {
  readonly model: OpenAI;
  readonly tools: ToolRegistry;
  readonly workspaceRoot: string;
}

export function createFoilActivities({ model, tools, workspaceRoot }: FoilDeps) {
  return {
    async foilCallModel(input: FoilCallModelInput): Promise<AssistantMessage> {
      const completion = await model.chat.completions.create(
        { model: input.model, messages: [...input.messages], tools: tools.specs() },
        { signal: Context.current().cancellationSignal },
      );
      const message = completion.choices[0]?.message;
      const reply = ChatMessageSchema.parse({
        role: 'assistant',
        content: message?.content ?? null,
        ...(message?.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
      });
      if (reply.role !== 'assistant') throw new Error('the model answered something other than an assistant message');
      return reply;
    },

    async foilRunTool(input: FoilRunToolInput): Promise<FoilToolResult> {
      const workspace = await ensureWorkspace(workspaceRoot, input.sessionId);
      const outcome = await runToolCall(tools, input.call.function.name, input.call.function.arguments, {
        workspace,
        signal: Context.current().cancellationSignal,
        timeoutMs: input.timeoutSeconds * 1000,
        outputCapChars: input.outputCapChars,
        sandbox: detectSandboxFromEnv(),
      });
      return { output: outcome.output, ...(outcome.finished ? { finished: outcome.finished } : {}) };
    },
  };
}

export type FoilActivities = ReturnType<typeof createFoilActivities>;
