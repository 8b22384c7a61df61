/**
 * AES-256-GCM payload codec: every payload agentd sends through Temporal (workflow input, activity
 * arguments and results, signals, updates, queries, memos) leaves the process encrypted, so the
 * server's history holds only ciphertext. Runs in the worker and the client, outside the workflow sandbox.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKey, EncryptionKeys } from './encryptionKeys';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER_METADATA = 'encryption-cipher';
const CIPHER = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A payload that cannot be decrypted: unknown key id, wrong key, or tampered bytes. */
export class PayloadDecryptionError extends Error {
  override readonly name = 'PayloadDecryptionError';
  constructor(
    message: string,
    readonly code: 'unknown_key_id' | 'authentication_failed' | 'malformed',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: ReadonlyMap<string, EncryptionKey>;
  private readonly current: EncryptionKey;

  constructor(keys: EncryptionKeys) {
    this.current = keys.current;
    this.byId = new Map(keys.all.map((key) => [key.id, key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (encodingOf(payload) === ENCRYPTED_ENCODING ? this.decrypt(payload) : payload));
  }

  private encrypt(payload: Payload): Payload {
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    // The key id is authenticated too, so a payload cannot be relabelled to another key unnoticed.
    cipher.setAAD(Buffer.from(this.current.id, 'utf8'));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return {
      metadata: {
        encoding: Buffer.from(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: Buffer.from(this.current.id),
        [CIPHER_METADATA]: Buffer.from(CIPHER),
      },
      data: Buffer.concat([iv, body, cipher.getAuthTag()]),
    };
  }

  private decrypt(payload: Payload): Payload {
    const keyId = Buffer.from(payload.metadata?.[KEY_ID_METADATA] ?? new Uint8Array()).toString('utf8');
    const key = this.byId.get(keyId);
    if (key === undefined) {
      throw new PayloadDecryptionError(
        `payload encrypted with key id '${keyId}', which this process does not have ` +
          `(known: ${[...this.byId.keys()].join(', ')}); add it to AGENTD_ENCRYPTION_PREVIOUS_KEYS`,
        'unknown_key_id',
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptionError('encrypted payload is too short', 'malformed');
    const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(key.id, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch (error) {
      throw new PayloadDecryptionError(`payload with key id '${keyId}' failed authentication (wrong key or altered bytes)`, 'authentication_failed', {
        cause: error,
      });
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}

function encodingOf(payload: Payload): string | undefined {
  const encoding = payload.metadata?.encoding;
  return encoding === undefined || encoding === null ? undefined : Buffer.from(encoding).toString('utf8');
}
