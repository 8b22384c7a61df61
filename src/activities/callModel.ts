/** The model activity: loads the live context from the store, calls the endpoint, stores the reply. */
import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import { ChatMessageSchema, type ChatMessage } from '../model/messages';
import { capToolCalls } from '../model/toolCallCap';
import { countToolTokens } from '../model/tokens';
import { fromSeqRuns } from '../policy/seqRuns';
import type { StoredMessage } from '../store/transcriptStore';
import type { ToolRegistry } from '../tools/registry';
import { toolsOf } from './toolsOf';
import type { ActivityDeps } from './deps';
import { capText } from '../model/capText';
import { measureOf } from './measure';
import { writePatiently } from './patientStoreWrite';
import { toModelFailure } from './modelFailure';
import { requestChat } from './spans';
import { usageOf } from './usage';
import { hostIdOf } from './hostId';
import { ANSWER_PREVIEW_CHARS, type CallModelInput, type CallModelResult, type ModelUsage } from './types';

export function createCallModel(deps: ActivityDeps) {
  const { store } = deps;
  const hostId = hostIdOf(deps);
  return async function callModel(input: CallModelInput): Promise<CallModelResult> {
    const tools = await toolsOf(deps, input.sessionId, input.tools);
    const toolSchemaTokens = toolTokensOf(tools);
    const context = await store.getMany(input.sessionId, fromSeqRuns(input.context));
    // A retry after the reply was stored must not call (and bill) the model again. Asked last, just
    // before the request: an attempt whose worker was paused (SIGSTOP, a frozen VM) past its
    // timeout wakes up here while another attempt may have stored the reply meanwhile.
    const stored = await store.get(input.sessionId, input.seq);
    if (stored) return { ...resultOf(stored, true, toolSchemaTokens, tools), hostId };
    // A retry with nothing stored: the attempt before may have been answered (and billed) and then
    // lost with its worker. It cannot be told from a retry after an endpoint error, so it is "possibly".
    const possiblyBilledCalls = Context.current().info.attempt > 1 ? 1 : 0;
    const completion = await requestChat(
      deps,
      { sessionId: input.sessionId, trace: input.trace, role: 'agent' },
      {
        model: input.model,
        messages: context.map((row) => row.message),
        tools: tools.specs(),
        ...(input.maxOutputTokens ? { max_tokens: input.maxOutputTokens } : {}),
      },
    );
    const { reply, dropped } = capToolCalls(replyOf(completion), input.maxToolCalls);
    const usage = usageOf(completion);
    // The reply is paid for: it waits for room in the store rather than being asked (and billed) again.
    const saved = await writePatiently(`callModel seq ${input.seq}: reply`, () =>
      store.put(input.sessionId, input.seq, reply, {
        usage,
        finishReason: completion.choices[0]?.finish_reason ?? null,
        model: completion.model,
        ...(dropped.length > 0 ? { droppedToolCalls: dropped } : {}),
      }),
    );
    const result = { ...resultOf(saved, false, toolSchemaTokens, tools), hostId };
    return possiblyBilledCalls > 0 ? { ...result, possiblyBilledCalls } : result;
  };
}

const toolTokens = new WeakMap<ToolRegistry, number>();

/** Counted once per registry: the worker's fixed registry is reused for every call. */
function toolTokensOf(tools: ToolRegistry): number {
  let tokens = toolTokens.get(tools);
  if (tokens === undefined) {
    tokens = countToolTokens(tools.specs());
    toolTokens.set(tools, tokens);
  }
  return tokens;
}

/** The assistant message of a completion, validated; a reply we cannot read is retried like an outage. */
function replyOf(completion: OpenAI.Chat.Completions.ChatCompletion): Extract<ChatMessage, { role: 'assistant' }> {
  const message = completion.choices?.[0]?.message;
  const parsed = ChatMessageSchema.safeParse({
    role: 'assistant',
    content: message?.content ?? null,
    ...(message?.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
  });
  if (!message || !parsed.success || parsed.data.role !== 'assistant') {
    throw toModelFailure(new Error(`model answered a completion without a readable assistant message`));
  }
  return parsed.data;
}

function resultOf(stored: StoredMessage, replayed: boolean, toolSchemaTokens: number, tools: ToolRegistry): CallModelResult {
  const { message } = stored;
  if (message.role !== 'assistant') {
    throw new Error(`seq ${stored.seq} of session ${stored.sessionId} holds a ${message.role} message, not a reply`);
  }
  const toolCalls = (message.tool_calls ?? []).map((call) => {
    const tool = tools.get(call.function.name);
    return {
      id: call.id,
      name: call.function.name,
      fingerprint: fingerprintOf(call.function.name, call.function.arguments),
      ...(tool === undefined ? {} : { effect: tool.effect }),
      ...(tool?.quick === true ? { quick: true as const } : {}),
    };
  });
  const usage = (stored.meta.usage as ModelUsage | undefined) ?? { promptTokens: 0, completionTokens: 0 };
  const dropped = stored.meta.droppedToolCalls;
  return {
    measure: measureOf(stored),
    toolCalls,
    ...(Array.isArray(dropped) && dropped.length > 0 ? { droppedToolCalls: dropped.length } : {}),
    ...(toolCalls.length === 0 ? { text: capText(message.content ?? '', ANSWER_PREVIEW_CHARS) } : {}),
    usage,
    toolSchemaTokens,
    replayed,
  };
}

/** Same tool and same argument text → same fingerprint; short, so it can travel through history. */
function fingerprintOf(name: string, args: string): string {
  return createHash('sha256').update(name).update('\0').update(args).digest('hex').slice(0, 16);
}
