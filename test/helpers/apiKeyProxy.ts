/**
 * A gRPC-over-HTTP/2 proxy with TLS that stands in for an API-key-protected frontend (as Temporal
 * Cloud is): every request must carry `authorization: Bearer <key>`; good ones are forwarded stream
 * by stream to a dev server's plain port, bad ones get gRPC status 16 (UNAUTHENTICATED).
 */
import { readFileSync } from 'node:fs';
import {
  connect,
  constants,
  createSecureServer,
  type ClientHttp2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TestPki } from './testPki';

export interface ApiKeyProxy {
  readonly address: string;
  /** gRPC methods forwarded with the right key, in arrival order. */
  authorized(): readonly string[];
  /** Requests refused: the method and the authorization header they carried (or none). */
  refused(): readonly { method: string; authorization: string | undefined }[];
  stop(): Promise<void>;
}

const GRPC_UNAUTHENTICATED = '16';

export async function startApiKeyProxy(pki: TestPki, target: string, apiKey: string): Promise<ApiKeyProxy> {
  const authorized: string[] = [];
  const refused: { method: string; authorization: string | undefined }[] = [];
  const upstreams = new Set<ClientHttp2Session>();
  const sessions = new Set<ServerHttp2Session>();
  const server = createSecureServer({ key: readFileSync(pki.serverKey), cert: readFileSync(pki.serverCert) });
  server.on('session', (session) => {
    sessions.add(session);
    session.on('error', () => undefined);
    // One upstream HTTP/2 session per downstream session, so long polls do not queue behind each other.
    const upstream = connect(`http://${target}`);
    upstreams.add(upstream);
    upstream.on('error', () => undefined);
    session.on('close', () => {
      upstream.close();
      upstreams.delete(upstream);
      sessions.delete(session);
    });
    session.on('stream', (stream, headers) => forward(stream, headers, upstream));
  });

  function forward(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, upstream: ClientHttp2Session): void {
    const method = String(headers[':path']);
    const authorization = headers.authorization;
    if (authorization !== `Bearer ${apiKey}`) {
      refused.push({ method, authorization });
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': GRPC_UNAUTHENTICATED, 'grpc-message': 'missing or wrong API key' },
        { endStream: true },
      );
      return;
    }
    authorized.push(method);
    const outgoing: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      if (!name.startsWith(':') || name === ':method' || name === ':path') outgoing[name] = value;
    }
    const request = upstream.request(outgoing);
    let trailers: OutgoingHttpHeaders = {};
    request.on('response', (response) => {
      const answer: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(response)) if (!name.startsWith(':') || name === ':status') answer[name] = value;
      // A trailers-only answer (an error) carries grpc-status in its headers and nothing after.
      if (response['grpc-status'] !== undefined) stream.respond(answer, { endStream: true });
      else stream.respond(answer, { waitForTrailers: true });
    });
    request.on('trailers', (received) => (trailers = { ...received }));
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    request.on('data', (chunk: Buffer) => {
      if (!stream.destroyed && !stream.writableEnded) stream.write(chunk);
    });
    request.on('end', () => {
      if (!stream.destroyed && !stream.writableEnded && stream.headersSent) stream.end();
    });
    request.on('error', () => stream.close(constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('data', (chunk: Buffer) => request.write(chunk));
    stream.on('end', () => request.end());
    stream.on('close', () => {
      if (!request.closed) request.close(constants.NGHTTP2_CANCEL);
    });
    stream.on('error', () => undefined);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorized: () => authorized,
    refused: () => refused,
    stop: () =>
      new Promise((resolve) => {
        for (const upstream of upstreams) upstream.destroy();
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
