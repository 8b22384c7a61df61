/**
 * Settings read from the environment, in one place, with the embedded defaults: local dev server,
 * SQLite files under `.agentd/`, and the simulator when no model endpoint is configured.
 */
import { join, resolve } from 'node:path';
import { readEncryptionKeys, type EncryptionKeys } from './codec/encryptionKeys';
import { ConfigError } from './configError';
import { resolveConnectionSettings, type ConnectionSettings } from './connection/options';
import { SIMULATOR_MODEL } from './model/knownModels';
import { PriceOverridesSchema, type PriceOverrides } from './model/prices';
import { parseStoreSetting, type StoreSetting } from './store/storeSetting';

export interface AgentdConfig {
  /** Address, namespace, TLS and API key of the Temporal cluster (TEMPORAL_* variables, `--address`… flags). */
  connection: ConnectionSettings;
  /** Payload encryption keys (AGENTD_ENCRYPTION_*); undefined: payloads go to Temporal unencrypted. */
  encryption?: EncryptionKeys;
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
  /** A .js module exporting the worker's user tools (AGENTD_TOOLS_MODULE). */
  toolsModule?: string;
  /** Limit of one model request; a hung endpoint fails the attempt and the session's retry policy takes over. */
  modelTimeoutMs: number;
  /** How long a stopping worker lets running activities finish before cancelling them. @default 30 */
  shutdownGraceSeconds: number;
  /** Prices per model from `AGENTD_PRICES` (JSON), ahead of gpt-tokenizer's table. */
  prices: PriceOverrides;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): AgentdConfig {
  const home = resolve(env.AGENTD_HOME ?? '.agentd');
  const usesSimulator = !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL;
  const encryption = readEncryptionKeys(env);
  return {
    connection: resolveConnectionSettings(env),
    ...(encryption ? { encryption } : {}),
    home,
    store: parseStoreSetting(env.AGENTD_STORE, join(home, 'transcripts.db')),
    workspaceRoot: resolve(env.AGENTD_WORKSPACES ?? join(home, 'workspaces')),
    ...(env.OPENAI_BASE_URL ? { modelBaseURL: env.OPENAI_BASE_URL } : {}),
    hasApiKey: Boolean(env.OPENAI_API_KEY),
    ...(env.AGENTD_TOOLS_MODULE ? { toolsModule: resolve(env.AGENTD_TOOLS_MODULE) } : {}),
    ...(env.AGENTD_MODEL || usesSimulator ? { defaultModel: env.AGENTD_MODEL ?? SIMULATOR_MODEL } : {}),
    modelTimeoutMs: positiveSeconds('AGENTD_MODEL_TIMEOUT_SECONDS', env.AGENTD_MODEL_TIMEOUT_SECONDS, 600) * 1000,
    shutdownGraceSeconds: shutdownGraceSeconds(env.AGENTD_SHUTDOWN_GRACE_SECONDS),
    prices: readPrices(env.AGENTD_PRICES),
  };
}

/** A whole number of seconds from the environment; a bad value is an error that names the variable. */
function positiveSeconds(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`${name}: expected a whole number of seconds > 0, got '${raw}'`);
  return value;
}

function readPrices(text: string | undefined): PriceOverrides {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`AGENTD_PRICES: not JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const parsed = PriceOverridesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`AGENTD_PRICES: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, { cause: parsed.error });
  }
  return parsed.data;
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
