/**
 * How to reach a Temporal cluster — address, namespace, TLS/mTLS, Temporal Cloud API key — resolved
 * from environment variables and command-line flags into one validated value. No I/O here: files
 * named by the settings are read in `connect.ts`, so resolving never touches secrets.
 */
import { z } from 'zod';

/** Environment variables, named as the stock `temporal` CLI names them (AGENTD-only ones say so). */
export const CONNECTION_ENV = {
  address: 'TEMPORAL_ADDRESS',
  namespace: 'TEMPORAL_NAMESPACE',
  tls: 'TEMPORAL_TLS',
  clientCertPath: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  clientKeyPath: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  serverCaPath: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  serverName: 'TEMPORAL_TLS_SERVER_NAME',
  apiKey: 'TEMPORAL_API_KEY',
  /** Not a stock CLI variable: a file holding the key, for secrets mounted as files. */
  apiKeyFile: 'AGENTD_TEMPORAL_API_KEY_FILE',
} as const;

/**
 * Flags of the `agentd` commands. The API key has only a file flag: a key given as a flag value
 * would show in `ps` and shell history.
 */
const CONNECTION_FLAGS = {
  address: 'address',
  namespace: 'namespace',
  clientCertPath: 'tls-cert',
  clientKeyPath: 'tls-key',
  serverCaPath: 'tls-ca',
  serverName: 'tls-server-name',
  apiKeyFile: 'api-key-file',
} as const;

export type ConnectionFlags = { [K in (typeof CONNECTION_FLAGS)[keyof typeof CONNECTION_FLAGS]]?: string | boolean };

const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
const DEFAULT_NAMESPACE = 'default';

const optionalText = z.string().trim().min(1, 'must not be empty').optional();

const ConnectionSettingsSchema = z
  .object({
    /** `host:port` of the Temporal frontend. @default 127.0.0.1:7233 */
    address: z
      .string()
      .trim()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):\d{1,5}$/, 'expected host:port (e.g. my-ns.a1b2c.tmprl.cloud:7233)'),
    /** @default "default" */
    namespace: z.string().trim().min(1, 'must not be empty'),
    /** TLS on or off explicitly; unset means on when any TLS option or an API key is given. */
    tls: z
      .enum(['true', 'false', '1', '0'], { message: "expected 'true' or 'false'" })
      .transform((value) => value === 'true' || value === '1')
      .optional(),
    clientCertPath: optionalText,
    clientKeyPath: optionalText,
    serverCaPath: optionalText,
    /** Overrides the name the server certificate is checked against (SNI). */
    serverName: optionalText,
    apiKey: optionalText,
    apiKeyFile: optionalText,
  })
  .strict();

type RawSettings = z.input<typeof ConnectionSettingsSchema>;
type Field = keyof RawSettings;

/** The TLS part of a connection; paths only, read when connecting. */
interface TlsSettings {
  clientCertPath?: string;
  clientKeyPath?: string;
  serverCaPath?: string;
  serverName?: string;
}

/** Where the API key comes from; the key's value stays out of descriptions. */
type ApiKeySource =
  /** `read` rather than a field, so printing or serializing the settings never shows the key. */
  | { kind: 'env'; variable: string; read: () => string }
  | { kind: 'file'; origin: string; path: string };

export interface ConnectionSettings {
  address: string;
  namespace: string;
  /** Undefined: plain TCP (the local dev server). */
  tls?: TlsSettings;
  apiKey?: ApiKeySource;
  /** For each field that was set, the variable or flag it came from, so later errors can name it. */
  origins: Partial<Record<Field, string>>;
}

/** A connection setting that is missing, malformed or unreadable; the message names the variable, flag or file. */
export class ConnectionSettingsError extends Error {
  override readonly name = 'ConnectionSettingsError';
  constructor(
    message: string,
    /** The environment variable or `--flag` at fault. */
    readonly field: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Flags win over environment variables; each value remembers where it came from. */
export function resolveConnectionSettings(
  env: NodeJS.ProcessEnv = process.env,
  flags: ConnectionFlags = {},
): ConnectionSettings {
  const raw: Partial<Record<Field, string>> = {};
  const origins: Partial<Record<Field, string>> = {};
  for (const field of Object.keys(CONNECTION_ENV) as Field[]) {
    const flag = field in CONNECTION_FLAGS ? CONNECTION_FLAGS[field as keyof typeof CONNECTION_FLAGS] : undefined;
    const flagValue = flag === undefined ? undefined : flags[flag];
    const envValue = env[CONNECTION_ENV[field]];
    if (typeof flagValue === 'string') {
      raw[field] = flagValue;
      origins[field] = `--${flag}`;
    } else if (envValue !== undefined && envValue !== '') {
      raw[field] = envValue;
      origins[field] = CONNECTION_ENV[field];
    }
  }
  const parsed = ConnectionSettingsSchema.safeParse({
    address: DEFAULT_TEMPORAL_ADDRESS,
    namespace: DEFAULT_NAMESPACE,
    ...raw,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = (issue?.path[0] as Field | undefined) ?? 'address';
    const origin = origins[field] ?? CONNECTION_ENV[field];
    // Only non-secret values are echoed; the API key is never repeated back.
    const shown = field === 'apiKey' || raw[field] === undefined ? '' : `, got '${raw[field]}'`;
    throw new ConnectionSettingsError(`${origin}: ${issue?.message ?? 'invalid'}${shown}`, origin);
  }
  return toSettings(parsed.data, origins);
}

function toSettings(values: z.output<typeof ConnectionSettingsSchema>, origins: Partial<Record<Field, string>>): ConnectionSettings {
  const name = (field: Field) => origins[field] ?? CONNECTION_ENV[field];
  if ((values.clientCertPath === undefined) !== (values.clientKeyPath === undefined)) {
    const missing: Field = values.clientCertPath === undefined ? 'clientCertPath' : 'clientKeyPath';
    const given: Field = missing === 'clientCertPath' ? 'clientKeyPath' : 'clientCertPath';
    throw new ConnectionSettingsError(
      `${name(given)} is set but ${CONNECTION_ENV[missing]} (--${CONNECTION_FLAGS[missing]}) is not: mTLS needs both the client certificate and its key`,
      CONNECTION_ENV[missing],
    );
  }
  if (values.apiKey !== undefined && values.apiKeyFile !== undefined) {
    throw new ConnectionSettingsError(
      `${name('apiKey')} and ${name('apiKeyFile')} are both set; give the API key one way`,
      name('apiKeyFile'),
    );
  }
  const tlsFields: TlsSettings = {
    ...(values.clientCertPath !== undefined ? { clientCertPath: values.clientCertPath } : {}),
    ...(values.clientKeyPath !== undefined ? { clientKeyPath: values.clientKeyPath } : {}),
    ...(values.serverCaPath !== undefined ? { serverCaPath: values.serverCaPath } : {}),
    ...(values.serverName !== undefined ? { serverName: values.serverName } : {}),
  };
  const apiKey: ApiKeySource | undefined =
    values.apiKey !== undefined
      ? { kind: 'env', variable: name('apiKey'), read: secret(values.apiKey) }
      : values.apiKeyFile !== undefined
        ? { kind: 'file', origin: name('apiKeyFile'), path: values.apiKeyFile }
        : undefined;
  const wantsTls = Object.keys(tlsFields).length > 0 || apiKey !== undefined;
  if (values.tls === false && wantsTls) {
    throw new ConnectionSettingsError(
      `${name('tls')} is false but TLS options or an API key are set; an API key or client certificate must not travel in clear`,
      name('tls'),
    );
  }
  const tlsOn = values.tls ?? wantsTls;
  return {
    address: values.address,
    namespace: values.namespace,
    ...(tlsOn ? { tls: tlsFields } : {}),
    ...(apiKey ? { apiKey } : {}),
    origins,
  };
}

/**
 * One line for logs: where, which namespace, and how it authenticates — paths shortened to their
 * last folder and file name, never a key or a certificate's content.
 */
export function describeConnection(settings: ConnectionSettings): string {
  const parts = [`${settings.address} (namespace ${settings.namespace})`];
  const tls = settings.tls;
  if (tls === undefined) parts.push('plain TCP');
  else if (tls.clientCertPath !== undefined) parts.push(`mTLS (cert ${shortPath(tls.clientCertPath)})`);
  else parts.push('TLS');
  if (tls?.serverCaPath !== undefined) parts.push(`CA ${shortPath(tls.serverCaPath)}`);
  if (tls?.serverName !== undefined) parts.push(`server name ${tls.serverName}`);
  if (settings.apiKey?.kind === 'env') parts.push(`API key set (${settings.apiKey.variable})`);
  if (settings.apiKey?.kind === 'file') parts.push(`API key from file ${shortPath(settings.apiKey.path)}`);
  return parts.join(', ');
}

function shortPath(path: string): string {
  const pieces = path.split('/').filter((piece) => piece !== '');
  return pieces.length <= 2 ? path : `…/${pieces.slice(-2).join('/')}`;
}

function secret(value: string): () => string {
  return () => value;
}
