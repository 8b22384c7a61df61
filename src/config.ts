/**
 * Settings read from the environment, in one place, with the embedded defaults: local dev server,
 * SQLite files under `.agentd/`, and the simulator when no model endpoint is configured.
 */
import { join, resolve } from 'node:path';
import { readEncryptionKeys, type EncryptionKeys } from './codec/encryptionKeys';
import { resolveConnectionSettings, type ConnectionSettings } from './connection/options';
import { SIMULATOR_MODEL } from './model/knownModels';

export interface AgentdConfig {
  /** Address, namespace, TLS and API key of the Temporal cluster (TEMPORAL_* variables, `--address`… flags). */
  connection: ConnectionSettings;
  /** Payload encryption keys (AGENTD_ENCRYPTION_*); undefined: payloads go to Temporal unencrypted. */
  encryption?: EncryptionKeys;
  /** Folder for local state: transcript store, workspaces, dev-server database. */
  home: string;
  storeFile: string;
  workspaceRoot: string;
  /** Base URL of an OpenAI-compatible endpoint; undefined means the built-in simulator. */
  modelBaseURL?: string;
  /** Whether an API key is set; the key itself is read only where the client is built. */
  hasApiKey: boolean;
  /** Model a new session uses unless told otherwise; none when an endpoint is set but no AGENTD_MODEL. */
  defaultModel?: string;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): AgentdConfig {
  const home = resolve(env.AGENTD_HOME ?? '.agentd');
  const usesSimulator = !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL;
  const encryption = readEncryptionKeys(env);
  return {
    connection: resolveConnectionSettings(env),
    ...(encryption ? { encryption } : {}),
    home,
    storeFile: resolve(env.AGENTD_STORE ?? join(home, 'transcripts.db')),
    workspaceRoot: resolve(env.AGENTD_WORKSPACES ?? join(home, 'workspaces')),
    ...(env.OPENAI_BASE_URL ? { modelBaseURL: env.OPENAI_BASE_URL } : {}),
    hasApiKey: Boolean(env.OPENAI_API_KEY),
    ...(env.AGENTD_MODEL || usesSimulator ? { defaultModel: env.AGENTD_MODEL ?? SIMULATOR_MODEL } : {}),
  };
}

/** True when no endpoint is configured and the worker should answer with the built-in simulator. */
export function usesSimulator(config: AgentdConfig): boolean {
  return !config.hasApiKey && config.modelBaseURL === undefined;
}
