/** agentd's public API for code: start and steer sessions, run a worker, the session contract. */
export { connectClient, newSessionId, resolveSessionInput, SessionClient, type SessionRequest } from './client/sessionClient';
export { createAgentWorker, startWorkerFromConfig, type AgentWorkerOptions } from './worker';
export { createActivities, type Activities, type ActivityDeps } from './activities';
export { messageSignal, stateQuery, TASK_QUEUE, WORKFLOW_TYPE, type MessageSignal } from './session/definitions';
export { SessionInputError, SessionInputSchema, type SessionInput, type SessionInputDraft } from './session/input';
export type { SessionResult, SessionState, SessionStatus, SessionOutcome } from './session/state';
export { SqliteTranscriptStore } from './store/sqliteStore';
export { PostgresTranscriptStore, type PostgresStoreOptions } from './store/postgresStore';
export { openStore } from './store/openStore';
export { parseStoreSetting, redactStoreUrl, type StoreSetting } from './store/storeSetting';
export type { TranscriptStore, StoredMessage } from './store/transcriptStore';
export { startSimulator, SIMULATOR_BANNER } from './simulator/server';
