/**
 * An OpenAI-compatible endpoint that answers every chat completion with the same short reply, at
 * once or after a fixed latency: no parsing beyond reading the body, no tokenizer, no script. The
 * cheapest model a step can call over HTTP, for the I/O floor.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const REPLY = JSON.stringify({
  id: 'chatcmpl-fixed',
  object: 'chat.completion',
  created: 0,
  model: 'fixed-reply',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

export interface FixedReplyModel {
  readonly baseURL: string;
  stop(): Promise<void>;
}

export interface FixedReplyOptions {
  /** Added before every answer, as the simulator's `latencyMs` is. @default 0 */
  readonly latencyMs?: number;
  /** Sees each request's raw body just before its answer goes out. */
  readonly onAnswer?: (body: string) => void;
}

export async function startFixedReplyModel(options: FixedReplyOptions = {}): Promise<FixedReplyModel> {
  const latencyMs = options.latencyMs ?? 0;
  const pending = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = () => {
        options.onAnswer?.(Buffer.concat(chunks).toString());
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(REPLY) });
        res.end(REPLY);
      };
      if (latencyMs === 0) return answer();
      const timer = setTimeout(() => {
        pending.delete(timer);
        answer();
      }, latencyMs);
      pending.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    async stop() {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
