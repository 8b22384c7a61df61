/**
 * Where transcripts live, from one setting (env AGENTD_STORE): a `postgres://` or `postgresql://`
 * URL selects PostgreSQL, anything else is a SQLite file path. Also the one place that knows how to
 * print that setting without its password.
 */
import { resolve } from 'node:path';
import { z } from 'zod';

const StoreSettingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sqlite'), file: z.string().min(1) }),
  z.object({ kind: z.literal('postgres'), url: z.string().min(1) }),
]);
export type StoreSetting = z.infer<typeof StoreSettingSchema>;

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** AGENTD_STORE cannot be used; the message names the variable and shows the value without its password. */
export class StoreSettingError extends Error {
  override readonly name = 'StoreSettingError';
}

/**
 * Reads the raw AGENTD_STORE value; `defaultFile` applies when it is unset or blank. A relative
 * SQLite path is resolved against the working directory, as before PostgreSQL existed.
 */
export function parseStoreSetting(raw: string | undefined, defaultFile: string): StoreSetting {
  const value = raw?.trim() ? raw.trim() : undefined;
  if (value === undefined) return { kind: 'sqlite', file: resolve(defaultFile) };
  if (!POSTGRES_URL.test(value)) return { kind: 'sqlite', file: resolve(value) };
  try {
    const url = new URL(value);
    if (!url.hostname && !url.searchParams.has('host')) throw new Error('no host');
  } catch (cause) {
    throw new StoreSettingError(`AGENTD_STORE: not a valid PostgreSQL URL (${redactStoreUrl(value)})`, { cause });
  }
  return { kind: 'postgres', url: value };
}

/** Query parameters libpq and node-postgres accept that carry a secret. */
const SECRET_PARAMS = ['password', 'sslpassword'];

/** The URL with its password (and password-like query parameters) replaced, for logs and messages. */
export function redactStoreUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Unparseable: keep the scheme only rather than guess where a password might be.
    return `${url.split(':', 1)[0]}://(unparseable URL hidden)`;
  }
  if (parsed.password) parsed.password = '***';
  for (const name of SECRET_PARAMS) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
  return parsed.toString();
}

/** The setting as an operator reads it in a start line: a file path, or the redacted URL. */
export function describeStore(setting: StoreSetting): string {
  return setting.kind === 'sqlite' ? `SQLite ${setting.file}` : `PostgreSQL ${redactStoreUrl(setting.url)}`;
}
