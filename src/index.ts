/** agentd's public API for code: start and steer sessions, run a worker, the session contract. */
export { connectClient, newSessionId, resolveSessionInput, SessionClient, type SessionRequest } from './client/sessionClient';
export { createAgentWorker, startWorkerFromConfig, type AgentWorkerOptions } from './worker';
export { createActivities, type Activities, type ActivityDeps } from './activities';
export { approveUpdate, messageSignal, stateQuery, TASK_QUEUE, WORKFLOW_TYPE, type MessageSignal } from './session/definitions';
export type { ApproveRequest } from './policy/budget';
export type { Price } from './policy/spend';
export { SessionInputError, SessionInputSchema, type SessionInput, type SessionInputDraft } from './session/input';
export type { ApproveResult, PauseReport, SessionResult, SessionState, SessionStatus, SessionOutcome, SpendReport } from './session/state';
export { SqliteTranscriptStore } from './store/sqliteStore';
export type { TranscriptStore, StoredMessage } from './store/transcriptStore';
export { startSimulator, SIMULATOR_BANNER } from './simulator/server';
