/**
 * An HTTP proxy between a worker and the simulators that meters every chat completion: which session
 * sent it (its task), whether it asked for a summary, and the prompt and cached tokens the answer
 * reported. It reads the wire, not the simulator's internals, so it measures whatever the simulator
 * (or a real endpoint) says about its prompt cache.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChatMessage } from '../../src/model/messages';
import { forwardToLoopback, isChatCompletion, readAll, relayAnswer, serveOnLoopback } from '../../harness/loopbackHttp';
import { isSummarizationRequest } from '../../src/simulator/summarize';

/** One answered chat completion. */
export interface MeteredCall {
  /** The session's task (its first user message), which names the session a call belongs to. */
  readonly task: string;
  /** The last message is the summarize instruction: a compaction's summary call. */
  readonly summarizing: boolean;
  /** `usage.prompt_tokens` of the answer. */
  readonly promptTokens: number;
  /** `usage.prompt_tokens_details.cached_tokens` of the answer (0 when absent). */
  readonly cachedTokens: number;
}

/** Called for each 200 answer with the request's messages, before the worker sees the answer. */
export type AnsweredHook = (messages: readonly ChatMessage[], call: MeteredCall) => void;

export interface UsageProxy {
  /** e.g. http://127.0.0.1:PORT/v1, for the worker's model client. */
  readonly baseURL: string;
  /** Answered calls in the order their answers came. */
  calls(): readonly MeteredCall[];
  /** Requests that did not get a 200 (refused, failed), by session task. */
  refused(): ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

interface UsageBody {
  usage?: { prompt_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } };
}

function messagesOf(raw: Buffer): ChatMessage[] {
  try {
    const body = JSON.parse(raw.toString('utf8')) as { messages?: ChatMessage[] };
    return body.messages ?? [];
  } catch {
    return []; // not a chat request the proxy can read: it is forwarded all the same
  }
}

function taskOf(messages: readonly ChatMessage[]): string {
  return messages.find((message) => message.role === 'user')?.content ?? '';
}

function usageOf(raw: Buffer): { promptTokens: number; cachedTokens: number } {
  try {
    const usage = (JSON.parse(raw.toString('utf8')) as UsageBody).usage;
    return { promptTokens: usage?.prompt_tokens ?? 0, cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0 };
  } catch {
    return { promptTokens: 0, cachedTokens: 0 };
  }
}

/**
 * Which simulator port a request goes to: chat completions by their session's task (sessions on
 * different windows need different strict simulators), anything else with `undefined`.
 */
export type Route = (task: string | undefined) => number;

/** Starts a proxy on a free port that forwards each request to the simulator `route` picks. */
export async function startUsageProxy(route: Route, onAnswered?: AnsweredHook): Promise<UsageProxy> {
  const calls: MeteredCall[] = [];
  const refused = new Map<string, number>();

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const isChat = isChatCompletion(req);
    const messages = isChat ? messagesOf(body) : [];
    const task = isChat ? taskOf(messages) : undefined;
    const answer = await forwardToLoopback(req, res, body, route(task));
    if (task !== undefined) {
      if (answer.status === 200) {
        const call: MeteredCall = { task, summarizing: isSummarizationRequest(messages), ...usageOf(answer.body) };
        calls.push(call);
        onAnswered?.(messages, call);
      } else {
        refused.set(task, (refused.get(task) ?? 0) + 1);
      }
    }
    relayAnswer(res, answer);
  }

  const server = await serveOnLoopback(forward);
  return {
    baseURL: server.baseURL,
    calls: () => calls,
    refused: () => refused,
    stop: () => server.stop(),
  };
}
