/**
 * An OpenAI-compatible endpoint that answers every chat completion with the same short reply at
 * once: no parsing beyond reading the body, no tokenizer, no script. The cheapest model a step can
 * call over HTTP, for the I/O floor.
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

export async function startFixedReplyModel(): Promise<FixedReplyModel> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(REPLY) });
      res.end(REPLY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
