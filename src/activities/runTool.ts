/** The tool activity: runs one declared tool call in the session's workspace and stores its result. */
import type { StoredMessage } from '../store/transcriptStore';
import { runToolCall } from '../tools/runToolCall';
import { ensureWorkspace } from '../tools/workspace';
import type { ActivityDeps } from './deps';
import { withHeartbeat } from './heartbeat';
import { capText, measureOf } from './measure';
import { ANSWER_PREVIEW_CHARS, type RunToolInput, type RunToolResult } from './types';

interface ToolMeta {
  toolName: string;
  isError: boolean;
  finished?: { answer: string };
}

export function createRunTool({ store, tools, workspaceRoot }: ActivityDeps) {
  return async function runTool(input: RunToolInput): Promise<RunToolResult> {
    const stored = await store.get(input.sessionId, input.seq);
    if (stored) return resultOf(stored, true);

    const call = await declaredCall(input, await store.get(input.sessionId, input.callSeq));
    const workspace = await ensureWorkspace(workspaceRoot, input.sessionId);
    const meta: ToolMeta = { toolName: call.function.name, isError: false };
    let output: string;
    try {
      const outcome = await withHeartbeat((signal) =>
        runToolCall(tools, call.function.name, call.function.arguments, {
          workspace,
          signal,
          timeoutMs: input.timeoutSeconds * 1000,
          outputCapChars: input.outputCapChars,
          transcript: {
            // Originals of this session's tool outputs only: a view's marker names them by seq.
            readOutput: async (seq) => {
              const row = await store.get(input.sessionId, seq);
              return row?.message.role === 'tool' ? row.message.content : undefined;
            },
          },
        }),
      );
      output = outcome.output;
      meta.isError = outcome.output.startsWith('error: ');
      if (outcome.finished) meta.finished = outcome.finished;
    } catch (error) {
      // A tool that crashes is news for the model, not a reason to end the session.
      output = `error: tool ${call.function.name} failed: ${error instanceof Error ? error.message : String(error)}`;
      meta.isError = true;
    }
    const saved = await store.put(
      input.sessionId,
      input.seq,
      { role: 'tool', tool_call_id: call.id, content: output },
      { ...meta },
    );
    return resultOf(saved, false);
  };
}

async function declaredCall(input: RunToolInput, assistant: StoredMessage | undefined) {
  const call =
    assistant?.message.role === 'assistant'
      ? assistant.message.tool_calls?.find((candidate) => candidate.id === input.toolCallId)
      : undefined;
  if (!call) {
    throw new Error(
      `session ${input.sessionId}: seq ${input.callSeq} declares no tool call ${input.toolCallId}`,
    );
  }
  return call;
}

function resultOf(stored: StoredMessage, replayed: boolean): RunToolResult {
  const meta = stored.meta as Partial<ToolMeta>;
  return {
    measure: measureOf(stored),
    toolName: meta.toolName ?? 'unknown',
    isError: meta.isError ?? false,
    ...(meta.finished ? { finished: { answer: capText(meta.finished.answer, ANSWER_PREVIEW_CHARS) } } : {}),
    replayed,
  };
}
