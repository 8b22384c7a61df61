/**
 * The payload encryption keys, from the environment: the current key (used to encrypt) and any
 * earlier keys still needed to decrypt old histories. Validated with zod; errors name the variable.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

export const ENCRYPTION_ENV = {
  keyId: 'AGENTD_ENCRYPTION_KEY_ID',
  key: 'AGENTD_ENCRYPTION_KEY',
  /** Earlier keys, `id=base64,id=base64`, kept for decryption only while old sessions may be read. */
  previousKeys: 'AGENTD_ENCRYPTION_PREVIOUS_KEYS',
} as const;

const KEY_BYTES = 32;

export interface EncryptionKey {
  /** Stored in each payload's metadata, so a payload names the key that opens it. */
  id: string;
  /** 32 bytes for AES-256, as a KeyObject: logging or serializing the config never shows the bytes. */
  key: KeyObject;
}

export interface EncryptionKeys {
  current: EncryptionKey;
  /** Every key that may decrypt, the current one included. */
  all: readonly EncryptionKey[];
}

/** Bad or incomplete encryption settings; `variable` is the environment variable at fault. */
export class EncryptionSettingsError extends Error {
  override readonly name = 'EncryptionSettingsError';
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
  }
}

const KeyIdSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'expected 1-64 letters, digits, dots, dashes, colons or underscores');

const KeySchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64')
  .transform((text) => Buffer.from(text, 'base64'))
  .refine((bytes) => bytes.length === KEY_BYTES, {
    message: `expected base64 of exactly ${KEY_BYTES} bytes (e.g. openssl rand -base64 32)`,
  });

/** Undefined when encryption is off (neither variable set); both or neither must be set. */
export function readEncryptionKeys(env: NodeJS.ProcessEnv = process.env): EncryptionKeys | undefined {
  const id = env[ENCRYPTION_ENV.keyId];
  const key = env[ENCRYPTION_ENV.key];
  const previous = env[ENCRYPTION_ENV.previousKeys];
  if (!id && !key) {
    if (previous) {
      throw new EncryptionSettingsError(
        `${ENCRYPTION_ENV.previousKeys} is set but ${ENCRYPTION_ENV.keyId} and ${ENCRYPTION_ENV.key} are not`,
        ENCRYPTION_ENV.keyId,
      );
    }
    return undefined;
  }
  if (!id) throw new EncryptionSettingsError(`${ENCRYPTION_ENV.key} is set but ${ENCRYPTION_ENV.keyId} is not`, ENCRYPTION_ENV.keyId);
  if (!key) throw new EncryptionSettingsError(`${ENCRYPTION_ENV.keyId} is set but ${ENCRYPTION_ENV.key} is not`, ENCRYPTION_ENV.key);
  const current = parseKey(id, key, ENCRYPTION_ENV.keyId, ENCRYPTION_ENV.key);
  const all: EncryptionKey[] = [current];
  for (const entry of (previous ?? '').split(',').filter((item) => item.trim() !== '')) {
    const at = entry.indexOf('=');
    if (at <= 0) {
      throw new EncryptionSettingsError(`${ENCRYPTION_ENV.previousKeys}: expected id=base64 entries separated by commas`, ENCRYPTION_ENV.previousKeys);
    }
    const older = parseKey(entry.slice(0, at), entry.slice(at + 1), ENCRYPTION_ENV.previousKeys, ENCRYPTION_ENV.previousKeys);
    if (all.some((known) => known.id === older.id)) {
      throw new EncryptionSettingsError(`${ENCRYPTION_ENV.previousKeys}: key id '${older.id}' appears twice`, ENCRYPTION_ENV.previousKeys);
    }
    all.push(older);
  }
  return { current, all };
}

function parseKey(id: string, key: string, idVariable: string, keyVariable: string): EncryptionKey {
  const parsedId = KeyIdSchema.safeParse(id);
  if (!parsedId.success) {
    throw new EncryptionSettingsError(`${idVariable}: ${parsedId.error.issues[0]?.message ?? 'invalid'}, got '${id}'`, idVariable);
  }
  const parsedKey = KeySchema.safeParse(key);
  // The key's value is never echoed back, even when it is malformed.
  if (!parsedKey.success) {
    throw new EncryptionSettingsError(`${keyVariable}: ${parsedKey.error.issues[0]?.message ?? 'invalid'}`, keyVariable);
  }
  return { id: parsedId.data, key: createSecretKey(parsedKey.data) };
}
