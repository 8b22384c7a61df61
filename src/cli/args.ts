/** Command-line parsing shared by the commands: node's parseArgs, with errors that name the flag. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readConfig, type AgentdConfig } from '../config/config';
import { resolveConnectionSettings, type ConnectionFlags } from '../connection/options';
import { UsageError } from './command';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every command that talks to Temporal accepts. */
export const CONNECTION_OPTIONS = {
  address: { type: 'string' },
  namespace: { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-ca': { type: 'string' },
  'tls-server-name': { type: 'string' },
  'api-key-file': { type: 'string' },
} as const satisfies Options;

export const CONNECTION_HELP = `Connection (flags override the environment; docs/guide/deploy.md):
  --address HOST:PORT       Temporal frontend (env TEMPORAL_ADDRESS, default 127.0.0.1:7233)
  --namespace NAME          Temporal namespace (env TEMPORAL_NAMESPACE, default "default")
  --tls-cert PATH           mTLS client certificate, PEM (env TEMPORAL_TLS_CLIENT_CERT_PATH)
  --tls-key PATH            its private key, PEM (env TEMPORAL_TLS_CLIENT_KEY_PATH)
  --tls-ca PATH             CA of the server's certificate (env TEMPORAL_TLS_SERVER_CA_CERT_PATH)
  --tls-server-name NAME    name to check the server's certificate against (env TEMPORAL_TLS_SERVER_NAME)
  --api-key-file PATH       Temporal Cloud API key from a file (or env TEMPORAL_API_KEY); turns TLS on
  TLS is on when any TLS option or an API key is set; TEMPORAL_TLS=true forces it without options.`;

export function parse<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The environment's settings with the connection flags (--address, --tls-cert…) applied. */
export function configWith(values: ConnectionFlags): AgentdConfig {
  return { ...readConfig(), connection: resolveConnectionSettings(process.env, values) };
}

export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new UsageError(`--${flag}: expected a positive whole number, got '${value}'`);
  return parsed;
}

export function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new UsageError(`--${flag}: expected a positive number, got '${value}'`);
  return parsed;
}

/** 0 or more, for settings where 0 means "off". */
export function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`--${flag}: expected a whole number (0 or more), got '${value}'`);
  return parsed;
}

export function requirePositional(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined || value === '') throw new UsageError(`missing <${name}>`);
  return value;
}
