/**
 * An HTTP server on a free loopback port for the proxies tests and benchmarks put in front of the
 * simulator: it answers each request with `handle`, and a failed one by dropping the connection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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
