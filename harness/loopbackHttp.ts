/**
 * An HTTP server on a free loopback port for the proxies tests and benchmarks put in front of the
 * simulator: it answers each request with `handle`, and a failed one by dropping the connection.
 * The proxies' shared forwarding step is here too: read the request, pass it on to a loopback port,
 * read the answer whole (so the proxy can look into it first), send it back.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackHttp {
  /** `http://127.0.0.1:<port>/v1`, what an OpenAI client is given as its base URL. */
  readonly baseURL: string;
  /** Closes the server and its connections; calling it again waits for the same close. */
  stop(): Promise<void>;
}

export async function serveOnLoopback(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<LoopbackHttp> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // The caller or the upstream went away; there is nobody left to answer.
      res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

export async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The only requests the proxies look into; everything else is passed through unread. */
export function isChatCompletion(req: IncomingMessage): boolean {
  return req.method === 'POST' && (req.url ?? '').startsWith('/v1/chat/completions');
}

/** An upstream's answer, read whole. */
export interface UpstreamAnswer {
  readonly status: number | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Sends `req`, whose `body` was already read, to the server on loopback `port` and reads its answer. */
export async function forwardToLoopback(req: IncomingMessage, res: ServerResponse, body: Buffer, port: number): Promise<UpstreamAnswer> {
  const upstream = httpRequest({
    host: '127.0.0.1',
    port,
    method: req.method,
    path: req.url,
    headers: { ...req.headers, host: `127.0.0.1:${port}` },
  });
  // A worker killed mid-request: drop the forwarded request too, as a real connection would.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  const answer = await new Promise<IncomingMessage>((resolve, reject) => {
    upstream.once('response', resolve);
    upstream.once('error', reject);
    upstream.end(body);
  });
  return { status: answer.statusCode, headers: answer.headers, body: await readAll(answer) };
}

/** Sends the upstream's answer back to the caller as it came. */
export function relayAnswer(res: ServerResponse, answer: UpstreamAnswer): void {
  // The body was read whole, so its length is known; the upstream's own framing does not matter.
  const headers = { ...answer.headers };
  delete headers['transfer-encoding'];
  headers['content-length'] = String(answer.body.length);
  res.writeHead(answer.status ?? 502, headers);
  res.end(answer.body);
}
