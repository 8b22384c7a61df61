/** agentd's public API for code: start and steer sessions, run a worker, the session contract. */
export { connectClient, newSessionId, resolveSessionInput, SessionClient, type ClientSettings, type SessionRequest } from './client/sessionClient';
export { readConfig, type AgentdConfig } from './config';
export { connectTemporal, connectTemporalNative, loadConnectionOptions } from './connection/connect';
export { ConnectionSettingsError, describeConnection, resolveConnectionSettings, type ConnectionSettings } from './connection/options';
export { AesGcmPayloadCodec, PayloadDecryptionError } from './codec/aesGcmCodec';
export { agentdDataConverter } from './codec/dataConverter';
export { EncryptionSettingsError, readEncryptionKeys, type EncryptionKeys } from './codec/encryptionKeys';
export { createAgentWorker, startWorkerFromConfig, type AgentWorkerOptions } from './worker';
export { createActivities, type Activities, type ActivityDeps } from './activities';
export { messageSignal, stateQuery, TASK_QUEUE, WORKFLOW_TYPE, type MessageSignal } from './session/definitions';
export { SessionInputError, SessionInputSchema, type SessionInput, type SessionInputDraft } from './session/input';
export type { SessionResult, SessionState, SessionStatus, SessionOutcome } from './session/state';
export { SqliteTranscriptStore } from './store/sqliteStore';
export type { TranscriptStore, StoredMessage } from './store/transcriptStore';
export { startSimulator, SIMULATOR_BANNER } from './simulator/server';
