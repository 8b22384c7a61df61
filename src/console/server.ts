/**
 * The console's HTTP server (node:http): every request is authorized first (auth.ts), then routed
 * to a page, one of the fixed asset files, or the API. Nothing is served from outside that list.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { approve, cancel, compactNow, contextChartSvg, fleetPage, interrupt, sendMessage, sessionPage, transcriptPage, type ConsoleDeps } from './api';
import { authorize } from './auth';
import { ConsoleInputError, failureOf } from './errors';
import { FLEET_PAGE, SESSION_PAGE } from './pages';
import { send, sendError, sendJson } from './respond';
import type { ConsoleSettings } from './settings';
import { CONSOLE_CSS } from './styles';

/** The browser scripts tsc writes beside this module (src/console/assets, its own tsconfig). */
const SCRIPTS: Readonly<Record<string, string>> = {
  'common.js': 'text/javascript; charset=utf-8',
  'fleet.js': 'text/javascript; charset=utf-8',
  'session.js': 'text/javascript; charset=utf-8',
};
const ASSET_DIR = join(__dirname, 'assets');
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface RunningConsole {
  server: Server;
  /** http://host:port/; with a token, `?token=<it>` appended once logs a browser in. */
  baseUrl: string;
  close(): Promise<void>;
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new ConsoleInputError(`the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConsoleInputError('the request body is not JSON', { cause: error });
  }
}

const CONTROLS = {
  message: (deps: ConsoleDeps, id: string, body: unknown) => sendMessage(deps, id, body),
  compact: (deps: ConsoleDeps, id: string) => compactNow(deps, id),
  interrupt: (deps: ConsoleDeps, id: string, body: unknown) => interrupt(deps, id, body),
  approve: (deps: ConsoleDeps, id: string, body: unknown) => approve(deps, id, body),
  cancel: (deps: ConsoleDeps, id: string) => cancel(deps, id),
} as const;

function isControl(name: string): name is keyof typeof CONTROLS {
  return Object.hasOwn(CONTROLS, name);
}

/** The path's segments, decoded; undefined when one is not valid percent-encoding (`%E0%A4%A`). */
function pathSegments(path: string): string[] | undefined {
  try {
    return path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch (error) {
    if (error instanceof URIError) return undefined;
    throw error;
  }
}

async function route(deps: ConsoleDeps, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname;
  const parts = pathSegments(path);
  if (parts === undefined) return sendError(response, 400, 'the path is not valid percent-encoding');
  if (request.method === 'GET') {
    if (path === '/') return send(response, 200, 'text/html; charset=utf-8', FLEET_PAGE);
    // Browsers ask for it unprompted; no icon, and no 404 in their console.
    if (path === '/favicon.ico') return send(response, 204, 'image/x-icon', '');
    if (parts[0] === 'sessions' && parts.length === 2) return send(response, 200, 'text/html; charset=utf-8', SESSION_PAGE);
    if (parts[0] === 'assets' && parts.length === 2) {
      const name = parts[1] ?? '';
      if (name === 'console.css') return send(response, 200, 'text/css; charset=utf-8', CONSOLE_CSS);
      const type = Object.hasOwn(SCRIPTS, name) ? SCRIPTS[name] : undefined;
      if (type === undefined) return sendError(response, 404, 'no such asset');
      return send(response, 200, type, await readFile(join(ASSET_DIR, name)));
    }
    if (parts[0] === 'api' && parts[1] === 'sessions') {
      const id = parts[2];
      if (id === undefined) return sendJson(response, 200, await fleetPage(deps, url.searchParams));
      if (parts.length === 3) return sendJson(response, 200, await sessionPage(deps, id));
      if (parts[3] === 'transcript') return sendJson(response, 200, await transcriptPage(deps, id, url.searchParams));
      if (parts[3] === 'chart.svg') return send(response, 200, 'image/svg+xml; charset=utf-8', await contextChartSvg(deps, id));
    }
    return sendError(response, 404, 'not found');
  }
  if (request.method === 'POST' && parts[0] === 'api' && parts[1] === 'sessions' && parts.length === 4) {
    const id = parts[2] ?? '';
    const control = parts[3] ?? '';
    if (!isControl(control)) return sendError(response, 404, 'no such control');
    return sendJson(response, 200, await CONTROLS[control](deps, id, await readJsonBody(request)));
  }
  return sendError(response, 404, 'not found');
}

export function consoleHandler(deps: ConsoleDeps, settings: ConsoleSettings) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://console.invalid');
    const verdict = authorize(request, url, settings);
    if (verdict.kind === 'refused') return sendError(response, verdict.status, verdict.reason);
    if (verdict.kind === 'login') return send(response, 303, 'text/plain; charset=utf-8', 'logged in', { Location: verdict.location, 'Set-Cookie': verdict.cookie });
    route(deps, request, response, url).catch((error: unknown) => {
      const failure = failureOf(error);
      if (!response.headersSent) sendError(response, failure.status, failure.error);
      else response.destroy(error instanceof Error ? error : undefined);
    });
  };
}

export async function startConsole(deps: ConsoleDeps, settings: ConsoleSettings): Promise<RunningConsole> {
  const server = createServer(consoleHandler(deps, settings));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const baseUrl = `http://${host}:${port}/`;
  return {
    server,
    baseUrl,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
