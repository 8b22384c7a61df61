/** agentd's public API for code: start and steer sessions, run a worker, the session contract. */
export { connectClient, newSessionId, SessionClient, type ClientSettings } from './client/sessionClient';
export { parseScheduleSpec, ScheduleInputError, type ScheduleSpec } from './client/scheduleSpec';
export { ScheduleMissingError, SessionSchedules, type ScheduleCounts, type ScheduleRow } from './client/sessionSchedules';
export { resolveSessionInput, type SessionRequest } from './session/resolve';
export { readConfig, type AgentdConfig } from './config/config';
export { connectTemporal, connectTemporalNative, loadConnectionOptions } from './connection/connect';
export { ConnectionSettingsError, describeConnection, resolveConnectionSettings, type ConnectionSettings } from './connection/options';
export { AesGcmPayloadCodec, PayloadDecryptionError } from './codec/aesGcmCodec';
export { agentdDataConverter } from './codec/dataConverter';
export { EncryptionSettingsError, readEncryptionKeys, type EncryptionKeys } from './codec/encryptionKeys';
export { createAgentWorker, createHostWorker, startWorkerFromConfig, type AgentWorkerOptions } from './worker';
export { createActivities, createHostActivities, type Activities, type ActivityDeps } from './activities';
export {
  approveUpdate,
  hostTaskQueue,
  interruptUpdate,
  messageSignal,
  stateQuery,
  TASK_QUEUE,
  WORKFLOW_TYPE,
  type InterruptRequest,
  type InterruptResult,
  type MessageSignal,
} from './session/definitions';
export type { ApproveRequest } from './policy/budget';
export type { Price } from './policy/spend';
export { SessionInputError, SessionInputSchema, type SessionInput, type SessionInputDraft } from './session/input';
export type { ApproveResult, PauseReport, SessionResult, SessionState, SessionStatus, SessionOutcome, SpendReport, WorkspaceReport } from './session/state';
export { describeSandbox, detectCommandSandbox, type CommandSandbox, type CommandLimits } from './tools/sandbox';
export { SqliteTranscriptStore } from './store/sqliteStore';
export { PostgresTranscriptStore, type PostgresStoreOptions } from './store/postgresStore';
export { openStore } from './store/openStore';
export { parseStoreSetting, redactStoreUrl, type StoreSetting } from './store/storeSetting';
export type { TranscriptStore, StoredMessage } from './store/transcriptStore';
export { startSimulator, SIMULATOR_BANNER } from './simulator/server';
export { defineTool, ToolEffect, ToolInputError, type Tool, type ToolContext, type ToolOutcome } from './tools/tool';
export { builtinTools, ToolRegistry } from './tools/registry';
export { loadUserTools, ToolModuleError } from './tools/userTools';
export { McpHub, type McpHubOptions } from './mcp/hub';
export { McpConfigError, McpServerSchema, parseMcpServers, readMcpServers, type McpServerConfig } from './mcp/config';
