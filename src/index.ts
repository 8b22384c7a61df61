/** agentd's public API for code: start and steer sessions, run a worker, the session contract. */
export { connectClient, newSessionId, resolveSessionInput, SessionClient, type SessionRequest } from './client/sessionClient';
export { createAgentWorker, createHostWorker, startWorkerFromConfig, type AgentWorkerOptions } from './worker';
export { createActivities, createHostActivities, type Activities, type ActivityDeps } from './activities';
export { hostTaskQueue, messageSignal, stateQuery, TASK_QUEUE, WORKFLOW_TYPE, type MessageSignal } from './session/definitions';
export { SessionInputError, SessionInputSchema, type SessionInput, type SessionInputDraft } from './session/input';
export type { SessionResult, SessionState, SessionStatus, SessionOutcome, WorkspaceReport } from './session/state';
export { describeSandbox, detectCommandSandbox, type CommandSandbox, type CommandLimits } from './tools/sandbox';
export { SqliteTranscriptStore } from './store/sqliteStore';
export type { TranscriptStore, StoredMessage } from './store/transcriptStore';
export { startSimulator, SIMULATOR_BANNER } from './simulator/server';
