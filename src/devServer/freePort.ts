/** Asking the OS for a TCP port nobody is listening on. */
import * as net from 'node:net';

/**
 * A port that was free a moment ago on `host`. Another process can still take it before the caller
 * binds it, so callers that pick ports this way should retry on "address in use".
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    // Not unref'd: a caller awaiting this may have nothing else keeping the event loop alive.
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error(`could not read the port of a listening socket on ${host}`));
      });
    });
  });
}
