/**
 * The `temporal server start-dev` command line: the caller's options checked first (they end up as
 * flags, `key=<JSON>` and `name=value`), then written out over the engine tuning with the settings
 * agentd always fixes.
 */
import { ENGINE_TUNING } from '../config/engineTuning';
import { devServerSearchAttributeArgs } from '../session/searchAttributes';
import type { DevServerOptions, LaunchOptions } from './devServer';
import { DevServerError } from './devServerError';

export const DEFAULT_NAMESPACE = 'default';

/** Dynamic config we always set: the version check phones home, and there is no outside network. */
const FIXED_DYNAMIC_CONFIG = { 'frontend.enableServerVersionCheck': false } as const;

/** The dynamic config a server started with `options` runs with: the tuning, the caller's, then ours. */
export function serverDynamicConfig(options: Pick<DevServerOptions, 'dynamicConfig'>): Record<string, string | number | boolean> {
  // Ours last so a caller cannot turn the version check (and its network call) back on.
  return { ...ENGINE_TUNING.server.dynamicConfig, ...options.dynamicConfig, ...FIXED_DYNAMIC_CONFIG };
}

/** The SQLite pragmas a server started with `options` runs with: the tuning, then the caller's. */
export function serverPragmas(options: Pick<DevServerOptions, 'sqlitePragmas'>): Record<string, string> {
  return { ...ENGINE_TUNING.server.sqlitePragmas, ...options.sqlitePragmas };
}

export function serverArgs(options: LaunchOptions, namespace: string): string[] {
  const args = ['server', 'start-dev', '--ip', options.ip, '--port', String(options.port)];
  args.push('--db-filename', options.dbFile, '--log-level', 'warn');
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (namespace !== DEFAULT_NAMESPACE) args.push('--namespace', namespace);
  // Registered at every start (the CLI skips those the database already has), so sessions can be listed by them.
  args.push(...devServerSearchAttributeArgs());
  for (const [name, value] of Object.entries(serverPragmas(options))) args.push('--sqlite-pragma', `${name}=${value}`);
  const dynamicConfig = serverDynamicConfig(options);
  for (const [key, value] of Object.entries(dynamicConfig)) {
    // The CLI parses each value as JSON, so strings need their quotes.
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
}

export function validate(options: DevServerOptions): void {
  const bad = (message: string): never => {
    throw new DevServerError('invalid-options', message);
  };
  if (options.dbFile.trim() === '') bad('dbFile must not be empty');
  for (const [name, value] of [
    ['port', options.port],
    ['uiPort', options.uiPort],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0 && value <= 65535)) {
      bad(`${name} must be an integer from 0 to 65535, got ${value}`);
    }
  }
  if (options.namespace !== undefined && options.namespace.trim() === '') bad('namespace must not be empty');
  if (options.readyTimeoutMs !== undefined && !(options.readyTimeoutMs > 0)) bad('readyTimeoutMs must be positive');
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    if (!/^[A-Za-z][A-Za-z0-9_.]*$/.test(key)) bad(`dynamic config key ${JSON.stringify(key)} is not a valid identifier`);
    if (typeof value === 'number' && !Number.isFinite(value)) bad(`dynamic config ${key} must be a finite number`);
  }
  for (const [name, value] of Object.entries(options.sqlitePragmas ?? {})) {
    if (!/^[a-z_]+$/.test(name) || !/^[A-Za-z0-9_-]+$/.test(value)) bad(`sqlite pragma ${JSON.stringify(`${name}=${value}`)} is not a plain name=value`);
  }
}
