/** The tool activity: runs one declared tool call in the session's workspace and stores its result. */
import { ApplicationFailure } from '@temporalio/activity';
import { messageText } from '../model/messageText';
import type { ToolCall } from '../model/messages';
import type { StoredMessage } from '../store/transcriptStore';
import type { ToolRegistry } from '../tools/registry';
import { runToolCall } from '../tools/runToolCall';
import { toolsOf } from './toolsOf';
import { ToolEffect } from '../tools/tool';
import { ensureWorkspace } from '../tools/workspace';
import type { ActivityDeps } from './deps';
import { delegationOutput } from './delegationOutput';
import { toolSpan } from './spans';
import { withHeartbeat } from './heartbeat';
import { capText } from '../model/capText';
import { measureOf } from './measure';
import { writePatiently } from './patientStoreWrite';
import { hostIdOf } from './hostId';
import { ActivityFailureType, ANSWER_PREVIEW_CHARS, ERROR_LINE_CHARS, type RunToolInput, type RunToolResult } from './types';

interface ToolMeta {
  toolName: string;
  isError: boolean;
  error?: string;
  finished?: { answer: string };
}

export function createRunTool(deps: ActivityDeps) {
  const { store, workspaceRoot } = deps;
  const hostId = hostIdOf(deps);
  const sandbox = deps.commandSandbox;
  /** Runs the call; a tool that crashes is news for the model, not a reason to end the session. */
  async function execute(tools: ToolRegistry, input: RunToolInput, call: ToolCall, meta: ToolMeta): Promise<string> {
    const workspace = await ensureWorkspace(workspaceRoot, input.sessionId);
    return withHeartbeat(async (signal) => {
      try {
        const outcome = await runToolCall(tools, call.function.name, call.function.arguments, {
          workspace,
          signal,
          sandbox,
          timeoutMs: input.timeoutSeconds * 1000,
          outputCapChars: input.outputCapChars,
          ...(input.storedOutputChars !== undefined ? { storedOutputChars: input.storedOutputChars } : {}),
          transcript: {
            // This session's rows only: another session's seqs are not the model's to read.
            readOutput: async (seq) => {
              const row = await store.get(input.sessionId, seq);
              return row ? messageText(row.message) : undefined;
            },
            // The call asking would always match its own query: it is left out.
            search: async (query, limit) =>
              (await store.search(input.sessionId, query, { limit: limit + 1 })).filter((hit) => hit.seq !== input.callSeq).slice(0, limit),
          },
        });
        meta.isError = outcome.output.startsWith('error: ');
        if (outcome.finished) meta.finished = outcome.finished;
        return outcome.output;
      } catch (error) {
        // A cancelled activity stores nothing: the workflow decides what happens next.
        if (signal.aborted) throw error;
        meta.isError = true;
        return `error: tool ${call.function.name} failed: ${withoutHostPaths(error instanceof Error ? error.message : String(error), workspace)}`;
      }
    });
  }

  /**
   * True when an earlier attempt started this world-changing call and died before storing a
   * result: running it again could do twice what must happen once.
   */
  async function startedBefore(tools: ToolRegistry, input: RunToolInput, call: ToolCall): Promise<boolean> {
    if (tools.get(call.function.name)?.effect !== ToolEffect.write) return false;
    return !(await writePatiently(`runTool seq ${input.seq}: started marker`, () => store.markStarted(input.sessionId, input.seq)));
  }

  /** What the call answers: why it cannot run, a child's end, a refusal to run a write twice, or the tool's output. */
  async function outputOf(tools: ToolRegistry, input: RunToolInput, call: ToolCall, meta: ToolMeta, unlisted: unknown): Promise<string> {
    if (unlisted !== undefined && tools.get(call.function.name) === undefined) {
      meta.isError = true;
      return `error: tool ${call.function.name} is not available: ${unlisted instanceof Error ? unlisted.message : String(unlisted)}`;
    }
    if (input.delegated !== undefined) {
      const delegated = input.delegated;
      const workspace = await ensureWorkspace(workspaceRoot, input.sessionId);
      // Copying a child's files can take longer than a heartbeat timeout.
      const output = await withHeartbeat(() => delegationOutput(deps, workspace, delegated));
      meta.isError = output.startsWith('error: ');
      return output;
    }
    if (await startedBefore(tools, input, call)) {
      meta.isError = true;
      return (
        `error: interrupted: an earlier attempt of ${call.function.name} started but never finished (its worker stopped); ` +
        'its effect is unknown and it was not run again. Check the workspace before repeating it.'
      );
    }
    return execute(tools, input, call, meta);
  }

  return async function runTool(input: RunToolInput): Promise<RunToolResult> {
    if (input.onlyOnHost !== undefined && input.onlyOnHost !== hostId) {
      // Untouched: the workflow sends the call on to the owner's queue.
      throw ApplicationFailure.create({
        message: `tool call seq ${input.seq} belongs to host ${input.onlyOnHost}'s workspace, not to this host (${hostId})`,
        type: ActivityFailureType.workspaceElsewhere,
        nonRetryable: true,
      });
    }
    const stored = await store.get(input.sessionId, input.seq);
    if (stored) return resultOf(stored, true);

    const call = declaredCall(input, await store.toolCallsOf(input.sessionId, input.callSeq));
    const meta: ToolMeta = { toolName: call.function.name, isError: false };
    // A session's MCP server that cannot be reached must not stop its built-in tools from running.
    let unlisted: unknown;
    const tools = await toolsOf(deps, input.sessionId, input.tools).catch((error: unknown) => {
      unlisted = error;
      return deps.tools.filtered(input.tools);
    });
    const span = { sessionId: input.sessionId, name: call.function.name, id: call.id, seq: input.seq, trace: input.trace };
    const output = await toolSpan(deps, span, () => outputOf(tools, input, call, meta, unlisted), () => meta.isError);
    const error = meta.isError ? errorLine(output) : undefined;
    // The tool has run: its result waits for room in the store rather than being lost with the attempt.
    const saved = await writePatiently(`runTool seq ${input.seq}: result`, () =>
      store.put(input.sessionId, input.seq, { role: 'tool', tool_call_id: call.id, content: output }, { ...meta, ...(error ? { error } : {}) }),
    );
    return resultOf(saved, false);
  };
}

/** `bwrap … not found; run_command is refused …` out of `error: bwrap … not found; …\n…`. */
function errorLine(output: string): string {
  const first = (output.split('\n', 1)[0] ?? '').replace(/^error:\s*/, '');
  return capText(first, ERROR_LINE_CHARS);
}

function declaredCall(input: RunToolInput, declared: readonly ToolCall[] | undefined): ToolCall {
  const call = declared?.find((candidate) => candidate.id === input.toolCallId);
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
    ...(meta.error ? { error: meta.error } : {}),
    ...(meta.finished ? { finished: { answer: capText(meta.finished.answer, ANSWER_PREVIEW_CHARS) } } : {}),
    replayed,
  };
}

/**
 * A fault's message as the model may see it: Node's file-system errors name absolute host paths
 * (`EIO: i/o error, open '/var/lib/agentd/workspaces/s1/x'`); the workspace becomes `/workspace`, as the
 * sandbox shows it, and other absolute paths are left out.
 */
function withoutHostPaths(message: string, workspace: string): string {
  return message.split(workspace).join('/workspace').replace(/'\/(?!workspace\b)[^']*'/g, "'<outside the workspace>'");
}
