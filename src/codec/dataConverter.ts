/** The data converter agentd's worker and clients share: the default one, plus encryption when keys are configured. */
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aesGcmCodec';
import type { EncryptionKeys } from './encryptionKeys';

export function agentdDataConverter(keys: EncryptionKeys | undefined): DataConverter | undefined {
  return keys === undefined ? undefined : { payloadCodecs: [new AesGcmPayloadCodec(keys)] };
}

/** For logs: whether payloads are encrypted and under which key id (never the key). */
export function describeEncryption(keys: EncryptionKeys | undefined): string {
  if (keys === undefined) return 'payloads not encrypted';
  const older = keys.all.length - 1;
  return `payloads encrypted (AES-256-GCM, key id ${keys.current.id}${older > 0 ? `, ${older} earlier key(s) for decryption` : ''})`;
}
