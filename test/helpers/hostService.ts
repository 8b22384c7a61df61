/**
 * A TCP service on the host's loopback that counts who reaches it: a sandboxed command that gets
 * through to it has escaped the network namespace.
 */
import { createServer } from 'node:net';

export interface HostService {
  readonly port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startHostService(): Promise<HostService> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.end('HELLO-FROM-HOST\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('the host service has no TCP port');
  return {
    port: address.port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
