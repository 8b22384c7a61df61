/**
 * Settings read from the environment, in one place, with the embedded defaults: local dev server,
 * SQLite files under `.agentd/`, and the simulator when no model endpoint is configured.
 */
import { join, resolve } from 'node:path';
import { ConfigError } from './configError';
import { SIMULATOR_MODEL } from './model/knownModels';
import { parseStoreSetting, type StoreSetting } from './store/storeSetting';

export interface AgentdConfig {
  temporalAddress: string;
  namespace: string;
  /** Folder for local state: transcript store, workspaces, dev-server database. */
  home: string;
  /** Transcript store: a SQLite file, or PostgreSQL when AGENTD_STORE is a postgres:// URL. */
  store: StoreSetting;
  workspaceRoot: string;
  /** Base URL of an OpenAI-compatible endpoint; undefined means the built-in simulator. */
  modelBaseURL?: string;
  /** Whether an API key is set; the key itself is read only where the client is built. */
  hasApiKey: boolean;
  /** Model a new session uses unless told otherwise; none when an endpoint is set but no AGENTD_MODEL. */
  defaultModel?: string;
  /** How long a stopping worker lets running activities finish before cancelling them. @default 30 */
  shutdownGraceSeconds: number;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): AgentdConfig {
  const home = resolve(env.AGENTD_HOME ?? '.agentd');
  const usesSimulator = !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL;
  return {
    temporalAddress: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    home,
    store: parseStoreSetting(env.AGENTD_STORE, join(home, 'transcripts.db')),
    workspaceRoot: resolve(env.AGENTD_WORKSPACES ?? join(home, 'workspaces')),
    ...(env.OPENAI_BASE_URL ? { modelBaseURL: env.OPENAI_BASE_URL } : {}),
    hasApiKey: Boolean(env.OPENAI_API_KEY),
    ...(env.AGENTD_MODEL || usesSimulator ? { defaultModel: env.AGENTD_MODEL ?? SIMULATOR_MODEL } : {}),
    shutdownGraceSeconds: shutdownGraceSeconds(env.AGENTD_SHUTDOWN_GRACE_SECONDS),
  };
}

/** True when no endpoint is configured and the worker should answer with the built-in simulator. */
export function usesSimulator(config: AgentdConfig): boolean {
  return !config.hasApiKey && config.modelBaseURL === undefined;
}

const DEFAULT_SHUTDOWN_GRACE_SECONDS = 30;

function shutdownGraceSeconds(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_SHUTDOWN_GRACE_SECONDS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new ConfigError(`AGENTD_SHUTDOWN_GRACE_SECONDS: expected a number of seconds (0 or more), got '${raw}'`);
  }
  return seconds;
}
