/**
 * Who may ask the console anything. With a token, every request carries it: as `Authorization:
 * Bearer`, or in the cookie that a one-time `?token=` link sets (HttpOnly, SameSite=Strict). Without
 * one (loopback only) the Host header must name loopback, so a page on another site cannot reach
 * the console through DNS rebinding. State-changing requests are POSTs of JSON whose Origin is the
 * console's own: a form or script on another site cannot forge one.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopback, type ConsoleSettings } from './settings';

export const TOKEN_COOKIE = 'agentd_console';

export type AuthVerdict =
  | { readonly kind: 'allowed' }
  /** A valid `?token=` link: set the cookie and send the browser on to `location` without it. */
  | { readonly kind: 'login'; readonly location: string; readonly cookie: string }
  | { readonly kind: 'refused'; readonly status: 401 | 403 | 421; readonly reason: string };

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares digests so the time taken says nothing about how much of the token matched. */
function tokenMatches(expected: string, given: string | undefined): boolean {
  return given !== undefined && timingSafeEqual(digest(expected), digest(given));
}

function cookieToken(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return decodedOrUndefined(value.join('='));
  }
  return undefined;
}

/** A cookie value that is not valid percent-encoding is no token at all, not a server error. */
function decodedOrUndefined(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch (error) {
    if (error instanceof URIError) return undefined;
    throw error;
  }
}

function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

function hostName(hostHeader: string): string {
  return hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : (hostHeader.split(':')[0] ?? '');
}

export function authorize(request: IncomingMessage, url: URL, settings: ConsoleSettings): AuthVerdict {
  const host = request.headers.host ?? '';
  if (settings.token === undefined) {
    if (!isLoopback(hostName(host))) return { kind: 'refused', status: 421, reason: 'this console answers only to a loopback host name' };
  } else {
    const linkToken = url.searchParams.get('token') ?? undefined;
    if (request.method === 'GET' && linkToken !== undefined && tokenMatches(settings.token, linkToken)) {
      url.searchParams.delete('token');
      const cookie = `${TOKEN_COOKIE}=${encodeURIComponent(settings.token)}; HttpOnly; SameSite=Strict; Path=/`;
      return { kind: 'login', location: `${url.pathname}${url.search}`, cookie };
    }
    if (!tokenMatches(settings.token, bearerToken(request) ?? cookieToken(request))) {
      return { kind: 'refused', status: 401, reason: 'a console token is required (open the link with ?token=, or send Authorization: Bearer)' };
    }
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    if (request.method !== 'POST') return { kind: 'refused', status: 403, reason: `method ${request.method ?? ''} is not allowed` };
    const origin = request.headers.origin;
    if (origin === undefined || origin !== `http://${host}`) {
      return { kind: 'refused', status: 403, reason: 'cross-site request refused: Origin must be this console' };
    }
    // A form post cannot send JSON; a script on another origin could only with a preflight we never grant.
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
      return { kind: 'refused', status: 403, reason: 'state-changing requests must be application/json' };
    }
  }
  return { kind: 'allowed' };
}
