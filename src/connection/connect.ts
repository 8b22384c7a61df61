/**
 * Opens Temporal connections from `ConnectionSettings`: reads the certificate, key and API key
 * files (errors name the variable or flag and the file), then builds the options both the client
 * (`Connection`) and the worker (`NativeConnection`) accept.
 */
import { Connection } from '@temporalio/client';
import type { TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { readFile } from 'node:fs/promises';
import { ConnectionSettingsError, CONNECTION_ENV, type ConnectionSettings } from './options';

/** The part of the connection options the client and the worker SDKs share. */
export interface TemporalConnectionOptions {
  address: string;
  /** `false` keeps plain TCP even if an API key were set (the SDK would otherwise turn TLS on). */
  tls: TLSConfig | false;
  apiKey?: string;
}

export async function loadConnectionOptions(settings: ConnectionSettings): Promise<TemporalConnectionOptions> {
  const origin = (field: keyof typeof CONNECTION_ENV) => settings.origins[field] ?? CONNECTION_ENV[field];
  let tls: TLSConfig | false = false;
  if (settings.tls !== undefined) {
    const { clientCertPath, clientKeyPath, serverCaPath, serverName } = settings.tls;
    tls = {
      ...(serverName !== undefined ? { serverNameOverride: serverName } : {}),
      ...(serverCaPath !== undefined
        ? { serverRootCACertificate: await readPem(origin('serverCaPath'), serverCaPath, 'CERTIFICATE') }
        : {}),
      ...(clientCertPath !== undefined && clientKeyPath !== undefined
        ? {
            clientCertPair: {
              crt: await readPem(origin('clientCertPath'), clientCertPath, 'CERTIFICATE'),
              key: await readPem(origin('clientKeyPath'), clientKeyPath, 'PRIVATE KEY'),
            },
          }
        : {}),
    };
  }
  const apiKey = settings.apiKey === undefined ? undefined : await readApiKey(settings.apiKey);
  return { address: settings.address, tls, ...(apiKey !== undefined ? { apiKey } : {}) };
}

/** A client-side connection (CLI, code using `SessionClient`). */
export async function connectTemporal(settings: ConnectionSettings): Promise<Connection> {
  return Connection.connect(await loadConnectionOptions(settings));
}

/** The worker's native (Rust core) connection. */
export async function connectTemporalNative(settings: ConnectionSettings): Promise<NativeConnection> {
  return NativeConnection.connect(await loadConnectionOptions(settings));
}

async function readFileNamed(origin: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new ConnectionSettingsError(`${origin}: cannot read '${path}' (${reason})`, origin, { cause: error });
  }
}

/** Checks the PEM label so a key given as the certificate (or a DER file) is caught with its name. */
async function readPem(origin: string, path: string, label: 'CERTIFICATE' | 'PRIVATE KEY'): Promise<Buffer> {
  const bytes = await readFileNamed(origin, path);
  const pattern = label === 'CERTIFICATE' ? /-----BEGIN CERTIFICATE-----/ : /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
  if (!pattern.test(bytes.toString('latin1'))) {
    throw new ConnectionSettingsError(`${origin}: '${path}' holds no PEM ${label.toLowerCase()}`, origin);
  }
  return bytes;
}

async function readApiKey(source: NonNullable<ConnectionSettings['apiKey']>): Promise<string> {
  if (source.kind === 'env') return source.read();
  const key = (await readFileNamed(source.origin, source.path)).toString('utf8').trim();
  if (key === '') throw new ConnectionSettingsError(`${source.origin}: '${source.path}' is empty`, source.origin);
  if (/\s/.test(key)) {
    throw new ConnectionSettingsError(`${source.origin}: '${source.path}' holds more than one line; expected only the key`, source.origin);
  }
  return key;
}
