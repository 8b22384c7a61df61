/** The console's gatekeeping without a browser: settings, the token's sources, and each request the server must refuse. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { authorize, TOKEN_COOKIE } from '../../src/console/auth';
import { ConsoleSettingsSchema, ConsoleTokenError, isLoopback, readConsoleToken, type ConsoleSettings } from '../../src/console/settings';

const TOKEN = 'a-console-token-of-some-length';

function request(method: string, headers: Record<string, string>): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage;
}

function verdict(settings: ConsoleSettings, method: string, path: string, headers: Record<string, string>) {
  return authorize(request(method, headers), new URL(path, 'http://console.invalid'), settings);
}

describe('console settings', () => {
  test('loopback needs no token; any other address does, of 16 characters or more', () => {
    assert.ok(ConsoleSettingsSchema.safeParse({ host: '127.0.0.1', port: 0 }).success);
    assert.ok(ConsoleSettingsSchema.safeParse({ host: '::1', port: 0 }).success);
    assert.equal(ConsoleSettingsSchema.safeParse({ host: '0.0.0.0', port: 0 }).success, false);
    assert.equal(ConsoleSettingsSchema.safeParse({ host: '0.0.0.0', port: 0, token: 'short' }).success, false);
    assert.ok(ConsoleSettingsSchema.safeParse({ host: '0.0.0.0', port: 0, token: TOKEN }).success);
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '[::1]', '::1']) assert.ok(isLoopback(host), host);
    for (const host of ['0.0.0.0', '10.0.0.1', '::', 'example.com', '128.0.0.1']) assert.equal(isLoopback(host), false, host);
  });

  test('the token file wins over the variable; an empty or missing file is an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-console-'));
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\nignored second line\n`);
    assert.equal(readConsoleToken({ AGENTD_CONSOLE_TOKEN: 'from-the-variable-xyz' }, file), TOKEN);
    assert.equal(readConsoleToken({ AGENTD_CONSOLE_TOKEN: ' from-the-variable-xyz ' }, undefined), 'from-the-variable-xyz');
    assert.equal(readConsoleToken({}, undefined), undefined);
    writeFileSync(file, '\n');
    assert.throws(() => readConsoleToken({}, file), ConsoleTokenError);
    assert.throws(() => readConsoleToken({}, join(dir, 'missing')), ConsoleTokenError);
  });
});

describe('console requests', () => {
  const open: ConsoleSettings = { host: '127.0.0.1', port: 7380 };
  const guarded: ConsoleSettings = { host: '0.0.0.0', port: 7380, token: TOKEN };
  const json = { 'content-type': 'application/json' };

  test('without a token, only a loopback Host is answered', () => {
    assert.equal(verdict(open, 'GET', '/', { host: '127.0.0.1:7380' }).kind, 'allowed');
    assert.equal(verdict(open, 'GET', '/', { host: 'localhost:7380' }).kind, 'allowed');
    assert.deepEqual(verdict(open, 'GET', '/', { host: 'rebound.example:7380' }), { kind: 'refused', status: 421, reason: 'this console answers only to a loopback host name' });
  });

  test('with a token: the bearer header or the cookie lets a request in; nothing else does', () => {
    const host = { host: '192.0.2.10:7380' };
    assert.equal(verdict(guarded, 'GET', '/api/sessions', host).kind, 'refused');
    assert.equal(verdict(guarded, 'GET', '/api/sessions', { ...host, authorization: 'Bearer wrong' }).kind, 'refused');
    assert.equal(verdict(guarded, 'GET', '/api/sessions', { ...host, authorization: `Bearer ${TOKEN}` }).kind, 'allowed');
    assert.equal(verdict(guarded, 'GET', '/api/sessions', { ...host, cookie: `other=1; ${TOKEN_COOKIE}=${TOKEN}` }).kind, 'allowed');
    assert.equal(verdict(guarded, 'GET', '/api/sessions', { ...host, cookie: `${TOKEN_COOKIE}=${TOKEN}x` }).kind, 'refused');
    assert.equal(verdict(guarded, 'GET', '/api/sessions', { ...host, cookie: `${TOKEN_COOKIE}=%E0%A4%A` }).kind, 'refused', 'malformed encoding');
  });

  test('a ?token= link sets the cookie and sends the browser on without the token; a wrong one is refused', () => {
    const login = verdict(guarded, 'GET', `/sessions/a?token=${TOKEN}&x=1`, { host: 'h:1' });
    assert.equal(login.kind, 'login');
    if (login.kind !== 'login') return;
    assert.equal(login.location, '/sessions/a?x=1');
    assert.match(login.cookie, /HttpOnly/);
    assert.match(login.cookie, /SameSite=Strict/);
    assert.equal(verdict(guarded, 'GET', '/?token=nope', { host: 'h:1' }).kind, 'refused');
    assert.equal(verdict(guarded, 'POST', `/api/sessions/a/cancel?token=${TOKEN}`, { host: 'h:1', origin: 'http://h:1', ...json }).kind, 'refused');
  });

  test('state changes must be JSON POSTs from the console\'s own origin', () => {
    const auth = { host: '127.0.0.1:7380', authorization: `Bearer ${TOKEN}` };
    const post = (headers: Record<string, string>, method = 'POST') => verdict(guarded, method, '/api/sessions/a/cancel', { ...auth, ...headers });
    assert.equal(post({ origin: 'http://127.0.0.1:7380', ...json }).kind, 'allowed');
    assert.equal(post({ ...json }).kind, 'refused');
    assert.equal(post({ origin: 'http://evil.example', ...json }).kind, 'refused');
    assert.equal(post({ origin: 'http://127.0.0.1:7380', 'content-type': 'text/plain' }).kind, 'refused');
    assert.equal(post({ origin: 'http://127.0.0.1:7380', ...json }, 'DELETE').kind, 'refused');
    assert.equal(verdict(open, 'POST', '/api/sessions/a/cancel', { host: '127.0.0.1:7380', origin: 'http://localhost:7380', ...json }).kind, 'refused');
  });
});
