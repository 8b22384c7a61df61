/**
 * Where the console listens and the token it asks for. Loopback needs none; any other address
 * refuses to start without one, so a console is never reachable from the network unguarded.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';

export const CONSOLE_TOKEN_ENV = 'AGENTD_CONSOLE_TOKEN';
/** Short tokens can be guessed by anyone who can reach the port. */
export const MIN_TOKEN_LENGTH = 16;

export const ConsoleSettingsSchema = z
  .object({
    host: z.string().min(1),
    port: z.number().int().min(0).max(65_535),
    token: z.string().min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`).optional(),
  })
  .strict()
  .refine((settings) => settings.token !== undefined || isLoopback(settings.host), {
    message: `binding beyond loopback needs a token: set ${CONSOLE_TOKEN_ENV} or pass --token-file`,
    path: ['token'],
  });
export type ConsoleSettings = z.infer<typeof ConsoleSettingsSchema>;

export const DEFAULT_CONSOLE_HOST = '127.0.0.1';
export const DEFAULT_CONSOLE_PORT = 7380;

/** 127.0.0.0/8, ::1 and `localhost`: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '::ffff:127.0.0.1';
}

export class ConsoleTokenError extends Error {
  override readonly name = 'ConsoleTokenError';
}

/** The token from `--token-file` (first line) or AGENTD_CONSOLE_TOKEN; the file wins. */
export function readConsoleToken(env: NodeJS.ProcessEnv, tokenFile: string | undefined): string | undefined {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(tokenFile, 'utf8');
    } catch (error) {
      throw new ConsoleTokenError(`--token-file: cannot read ${tokenFile}`, { cause: error });
    }
    const token = text.split('\n')[0]?.trim() ?? '';
    if (token === '') throw new ConsoleTokenError(`--token-file: ${tokenFile} is empty`);
    return token;
  }
  const fromEnv = env[CONSOLE_TOKEN_ENV]?.trim();
  return fromEnv ? fromEnv : undefined;
}
