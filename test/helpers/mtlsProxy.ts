/**
 * A TLS-terminating TCP proxy that demands a client certificate signed by the test CA, then pipes
 * bytes to a dev server's plain port: what an mTLS-protected Temporal frontend looks like to agentd.
 */
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer } from 'node:tls';
import type { TestPki } from './testPki';

export interface MtlsProxy {
  /** 127.0.0.1:PORT */
  readonly address: string;
  /** Handshakes completed with a valid client certificate. */
  accepted(): number;
  /** Handshakes that failed (no certificate, unknown CA…), with the error text. */
  rejected(): readonly string[];
  stop(): Promise<void>;
}

export async function startMtlsProxy(pki: TestPki, target: string): Promise<MtlsProxy> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let accepted = 0;
  const rejected: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(
    {
      key: readFileSync(pki.serverKey),
      cert: readFileSync(pki.serverCert),
      ca: readFileSync(pki.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (client) => {
      accepted += 1;
      const upstream = connect(port, host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    },
  );
  server.on('tlsClientError', (error) => rejected.push(error.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepted: () => accepted,
    rejected: () => rejected,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
