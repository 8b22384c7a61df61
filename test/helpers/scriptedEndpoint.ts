/**
 * A raw OpenAI-compatible endpoint whose replies a test writes by hand, for what a model does that
 * the simulator has no habit of (a reply with 10,000 tool calls, a reply of megabytes). It keeps the
 * messages of every request it was sent.
 */
import { readAll, serveOnLoopback, type LoopbackHttp } from '../../harness/loopbackHttp';

export interface SentMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

/** The assistant message to answer a request with: `content`, and `tool_calls` in the API's shape. */
export type ScriptedReply = { content: string | null; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> };

export interface ScriptedEndpoint extends LoopbackHttp {
  /** The messages of each request, in the order they came. */
  readonly requests: SentMessage[][];
  /** The names of the tools each request offered, in the same order. */
  readonly offeredTools: string[][];
}

/** Answers request `index` (0-based) with `replyTo(index, messages)`. */
export async function serveScriptedReplies(replyTo: (index: number, messages: SentMessage[]) => ScriptedReply): Promise<ScriptedEndpoint> {
  const requests: SentMessage[][] = [];
  const offeredTools: string[][] = [];
  const http = await serveOnLoopback(async (req, res) => {
    const body = JSON.parse((await readAll(req)).toString('utf8')) as { messages: SentMessage[]; tools?: Array<{ function: { name: string } }> };
    requests.push(body.messages);
    offeredTools.push((body.tools ?? []).map((tool) => tool.function.name));
    const message = replyTo(requests.length - 1, body.messages);
    const completion = {
      id: `chatcmpl-scripted-${requests.length}`,
      object: 'chat.completion',
      created: 0,
      model: 'agentd-sim',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', logprobs: null }],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion));
  });
  return { ...http, requests, offeredTools };
}
