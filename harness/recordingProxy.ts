/**
 * An HTTP proxy between a worker and the simulator that records every chat completion request:
 * when it arrived, a key of the messages it carried, and what came back. The simulator cannot be
 * changed from tests, and its stats keep no request bodies, so this is how a test sees whether the
 * same context was sent to the model twice.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatMessage } from '../src/model/messages';
import { forwardToLoopback, isChatCompletion, readAll, relayAnswer, serveOnLoopback } from './loopbackHttp';

export interface ProxiedCall {
  /** Date.now() when the request reached the proxy (before it was forwarded). */
  readonly at: number;
  /** sha256 of the canonical JSON of the request's `messages`: equal keys, equal contexts. */
  readonly contextKey: string;
  readonly messageCount: number;
  /** The task (first user message), which names the session a request belongs to. */
  readonly task: string;
  /** The last user message's text: what was said to the model most recently (a steering message, a notice…). */
  readonly lastUserText: string;
  /** Set once the simulator answered; absent when the caller went away or the answer never came. */
  status?: number;
  /** `replyKey` of the assistant message in a 200 answer. */
  replyKey?: string;
}

export interface RecordingProxy {
  /** e.g. http://127.0.0.1:PORT/v1, for OPENAI_BASE_URL. */
  readonly baseURL: string;
  /** Chat completion requests in arrival order. */
  calls(): readonly ProxiedCall[];
  stop(): Promise<void>;
}

/** JSON with object keys sorted, so two equal messages give the same text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What identifies an assistant reply: its text and its tool calls (the script's ids name the step). */
export function replyKey(message: Pick<Extract<ChatMessage, { role: 'assistant' }>, 'content' | 'tool_calls'>): string {
  const calls = (message.tool_calls ?? []).map((call) => [call.id, call.function.name, call.function.arguments]);
  return sha256(canonicalJson([message.content ?? null, calls]));
}

interface RequestBody {
  messages?: Array<{ role?: unknown; content?: unknown }>;
}

interface CompletionBody {
  choices?: Array<{ message?: { content?: string | null; tool_calls?: Extract<ChatMessage, { role: 'assistant' }>['tool_calls'] } }>;
}

function describeRequest(raw: Buffer, at: number): ProxiedCall {
  let body: RequestBody = {};
  try {
    body = JSON.parse(raw.toString('utf8')) as RequestBody;
  } catch {
    // Recorded with an empty context: a request the proxy cannot read is still a request.
  }
  const messages = body.messages ?? [];
  const task = messages.find((message) => message.role === 'user')?.content;
  const lastUser = [...messages].reverse().find((message) => message.role === 'user')?.content;
  return {
    at,
    contextKey: sha256(canonicalJson(messages)),
    messageCount: messages.length,
    task: typeof task === 'string' ? task : '',
    lastUserText: typeof lastUser === 'string' ? lastUser : '',
  };
}

function replyKeyOf(raw: Buffer): string | undefined {
  try {
    const message = (JSON.parse(raw.toString('utf8')) as CompletionBody).choices?.[0]?.message;
    return message === undefined ? undefined : replyKey({ content: message.content ?? null, tool_calls: message.tool_calls });
  } catch {
    return undefined; // a malformed answer (injected fault) has no reply
  }
}

/** Starts a proxy on a free port that forwards everything to the simulator on `targetPort`. */
export async function startRecordingProxy(targetPort: number): Promise<RecordingProxy> {
  const calls: ProxiedCall[] = [];

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const body = await readAll(req);
    const call = isChatCompletion(req) ? describeRequest(body, at) : undefined;
    if (call) calls.push(call);
    const answer = await forwardToLoopback(req, res, body, targetPort);
    if (call) {
      call.status = answer.status;
      if (answer.status === 200) {
        const key = replyKeyOf(answer.body);
        if (key !== undefined) call.replyKey = key;
      }
    }
    relayAnswer(res, answer);
  }

  const server = await serveOnLoopback(forward);
  return {
    baseURL: server.baseURL,
    calls: () => calls,
    stop: () => server.stop(),
  };
}
