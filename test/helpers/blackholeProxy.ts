/**
 * A loopback TCP proxy that can cut the network without closing anything: `blackhole()` stops
 * moving bytes in both directions (sockets stay open, nothing is read, so senders back up as they
 * would behind a dead link), `restore()` moves them again, in order. Connections opened during a
 * cut are accepted but reach their target only once it is restored, as a SYN retransmitted after
 * an outage would.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface BlackholeProxy {
  /** `127.0.0.1:PORT`, to give a client instead of the target's address. */
  readonly address: string;
  /** Stops forwarding; sockets stay open. */
  blackhole(): void;
  /**
   * Forwards again, first what was held back during the cut. With `reset`, the connections that
   * lived through the cut are dropped instead (a firewall or NAT that forgot them while the link
   * was down), so the client must open new ones.
   */
  restore(options?: { reset?: boolean }): void;
  isCut(): boolean;
  /** Connections accepted so far (a client that reconnects shows up here). */
  connections(): number;
  stop(): Promise<void>;
}

export async function startBlackholeProxy(targetAddress: string): Promise<BlackholeProxy> {
  const [host, port] = splitAddress(targetAddress);
  let cut = false;
  let accepted = 0;
  const sockets = new Set<Socket>();
  /** What happened on a socket during a cut, replayed in order on restore. */
  let held: Array<() => void> = [];
  /** Connections accepted during a cut, connected upstream on restore. */
  let waiting: Array<() => void> = [];

  const act = (source: Socket, action: () => void) => {
    if (!cut) return action();
    source.pause();
    held.push(action);
  };
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // a 'close' follows, handled below
    if (cut) socket.pause();
  };

  const server = createServer((client) => {
    accepted += 1;
    track(client);
    let upstream: Socket | undefined;
    const toUpstream: Buffer[] = [];
    let clientEnded = false;
    let clientClosed = false;
    client.on('data', (chunk: Buffer) =>
      act(client, () => (upstream ? upstream.write(chunk) : toUpstream.push(chunk))),
    );
    client.on('end', () => act(client, () => (upstream ? upstream.end() : (clientEnded = true))));
    client.on('close', () => act(client, () => (upstream ? upstream.destroy() : (clientClosed = true))));

    const open = () => {
      if (clientClosed) return;
      upstream = connect({ host, port });
      track(upstream);
      for (const chunk of toUpstream.splice(0)) upstream.write(chunk);
      if (clientEnded) upstream.end();
      const peer = upstream;
      peer.on('data', (chunk: Buffer) => act(peer, () => client.write(chunk)));
      peer.on('end', () => act(peer, () => client.end()));
      peer.on('close', () => act(peer, () => client.destroy()));
    };
    if (cut) waiting.push(open);
    else open();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const listening = (server.address() as AddressInfo).port;

  let stopped: Promise<void> | undefined;
  return {
    address: `127.0.0.1:${listening}`,
    blackhole() {
      cut = true;
      for (const socket of sockets) socket.pause();
    },
    restore(options = {}) {
      if (!cut) return;
      cut = false;
      const opens = waiting;
      waiting = [];
      const actions = held;
      held = [];
      if (options.reset) {
        for (const socket of sockets) socket.destroy();
        return;
      }
      for (const open of opens) open();
      for (const action of actions) action();
      for (const socket of sockets) socket.resume();
    },
    isCut: () => cut,
    connections: () => accepted,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        cut = false;
        held = [];
        waiting = [];
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return stopped;
    },
  };
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  const port = Number(address.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port)) throw new Error(`not a host:port address: ${address}`);
  return [address.slice(0, at), port];
}
