/**
 * The failure converter used while payloads are encrypted: it moves each failure's message and stack
 * trace into an encoded payload, so the codec encrypts them too (error texts can quote the task, a
 * file or a model's answer). Loaded by path into the workflow bundle, so it imports only `@temporalio/common`.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
