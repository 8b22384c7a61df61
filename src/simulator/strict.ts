/** Validates a chat completion request the way a strict OpenAI endpoint does, tokens included. */
import { z } from 'zod';
import type { ChatMessage, ToolSpec } from '../model/messages';
import { promptTokens as countPromptTokens } from './tokenMemo';
import { invalidRequest, notFound, type ErrorResponse } from './errors';
import { ChatRequestSchema, type ChatRequest } from './request';
import { RejectionReason } from './stats';

export interface StrictLimits {
  readonly contextWindow: number;
  readonly model: string;
}

export type Validation =
  | {
      readonly ok: true;
      readonly request: ChatRequest;
      /** The tools exactly as sent (key order included), which is what the token count saw. */
      readonly tools: readonly ToolSpec[];
      readonly promptTokens: number;
    }
  | { readonly ok: false; readonly reason: RejectionReason; readonly error: ErrorResponse };

/** `['messages', 2, 'content']` → `messages[2].content`, the way OpenAI names fields. */
function fieldName(path: readonly PropertyKey[]): string {
  let name = '';
  for (const key of path) {
    if (typeof key === 'number') name += `[${key}]`;
    else name += name === '' ? String(key) : `.${String(key)}`;
  }
  return name;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** One 400 for the first problem, phrased like OpenAI's, naming the field. */
function schemaError(body: unknown, error: z.ZodError): ErrorResponse {
  const unknownKeys = error.issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknownKeys !== undefined && unknownKeys.code === 'unrecognized_keys') {
    const where = fieldName(unknownKeys.path);
    const keys = unknownKeys.keys.map((key) => (where === '' ? key : `${where}.${key}`));
    return invalidRequest(`Unrecognized request argument supplied: ${keys.join(', ')}`, keys[0] ?? null);
  }
  const issue = error.issues[0];
  if (issue === undefined) return invalidRequest('Invalid request body.', null);
  const param = fieldName(issue.path);
  if (issue.path.length > 0 && valueAt(body, issue.path) === undefined) {
    return invalidRequest(`Missing required parameter: '${param}'.`, param);
  }
  return invalidRequest(`Invalid value for '${param === '' ? 'body' : param}': ${issue.message}`, param || null);
}

/** Shapes the message schema allows but OpenAI refuses. */
function shapeError(messages: readonly ChatMessage[]): ErrorResponse | undefined {
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    if (message.tool_calls !== undefined && message.tool_calls.length === 0) {
      const param = `messages[${index}].tool_calls`;
      return invalidRequest(`Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, param);
    }
    if (message.content === null && message.tool_calls === undefined) {
      const param = `messages[${index}].content`;
      return invalidRequest(`Invalid value for '${param}': expected a string, got null.`, param);
    }
  }
  return undefined;
}

/**
 * Every assistant message with tool_calls must be followed, right away, by one tool message per
 * call id; a tool message answering anything else is an orphan. This is what OpenAI enforces and
 * what a context-trimming agent most easily breaks.
 */
function pairingError(
  messages: readonly ChatMessage[],
): { readonly reason: RejectionReason; readonly error: ErrorResponse } | undefined {
  let open = new Set<string>();
  let openAt = -1;
  const unanswered = () => ({
    reason: RejectionReason.unansweredToolCall,
    error: invalidRequest(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. ` +
        `The following tool_call_ids did not have response messages: ${[...open].join(', ')} (messages[${openAt}]).`,
      'messages',
    ),
  });
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) {
        return {
          reason: RejectionReason.orphanToolResult,
          error: invalidRequest(
            `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'. ` +
              `messages[${index}] answers tool_call_id '${message.tool_call_id}', which is not an open call of the assistant message before it.`,
            'messages',
          ),
        };
      }
      continue;
    }
    if (open.size > 0) return unanswered();
    open = new Set(message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : []);
    openAt = index;
  }
  return open.size > 0 ? unanswered() : undefined;
}

/** Checks in the order OpenAI does: shape, model, message pairing, then size. */
export function validateChatRequest(body: unknown, limits: StrictLimits): Validation {
  const parsed = ChatRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, reason: RejectionReason.badRequest, error: schemaError(body, parsed.error) };
  const request = parsed.data;

  const shape = shapeError(request.messages);
  if (shape !== undefined) return { ok: false, reason: RejectionReason.badRequest, error: shape };

  if (request.model !== limits.model) {
    const error = notFound(`The model \`${request.model}\` does not exist or you do not have access to it.`, 'model_not_found');
    return { ok: false, reason: RejectionReason.badRequest, error };
  }

  const pairing = pairingError(request.messages);
  if (pairing !== undefined) return { ok: false, ...pairing };

  // The schema validated these; the raw objects keep the exact JSON the client sent.
  const tools = request.tools === undefined ? [] : (valueAt(body, ['tools']) as ToolSpec[]);
  const promptTokens = countPromptTokens(request.messages, tools);
  if (promptTokens > limits.contextWindow) {
    const error = invalidRequest(
      `This model's maximum context length is ${limits.contextWindow} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
      'messages',
      'context_length_exceeded',
    );
    return { ok: false, reason: RejectionReason.contextLengthExceeded, error };
  }
  return { ok: true, request, tools, promptTokens };
}
