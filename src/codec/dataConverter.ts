/** The data converter agentd's worker and clients share: the default one, plus encryption when keys are configured. */
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aesGcmCodec';
import type { EncryptionKeys } from './encryptionKeys';

/** Path of the failure converter that puts failure messages into (encrypted) payloads; bundles built ahead need it too. */
export const ENCRYPTED_FAILURE_CONVERTER_PATH = require.resolve('./failureConverter');

export function agentdDataConverter(keys: EncryptionKeys | undefined): DataConverter | undefined {
  if (keys === undefined) return undefined;
  return { payloadCodecs: [new AesGcmPayloadCodec(keys)], failureConverterPath: ENCRYPTED_FAILURE_CONVERTER_PATH };
}

/** For logs: whether payloads are encrypted and under which key id (never the key). */
export function describeEncryption(keys: EncryptionKeys | undefined): string {
  if (keys === undefined) return 'payloads not encrypted';
  const older = keys.all.length - 1;
  return `payloads encrypted (AES-256-GCM, key id ${keys.current.id}${older > 0 ? `, ${older} earlier key(s) for decryption` : ''})`;
}
