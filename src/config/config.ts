/**
 * Settings read from the environment, in one place, with the embedded defaults: local dev server,
 * SQLite files under `.agentd/`, and the simulator when no model endpoint is configured.
 */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { readEncryptionKeys, type EncryptionKeys } from '../codec/encryptionKeys';
import { ConfigError } from './configError';
import { DEFAULT_MAX_CONCURRENT_ACTIVITIES, DEFAULT_WORKFLOW_CACHE_SIZE } from './engineTuning';
import { resolveConnectionSettings, type ConnectionSettings } from '../connection/options';
import { SIMULATOR_MODEL } from '../model/knownModels';
import { type CommandLimits, DEFAULT_COMMAND_LIMITS } from '../tools/sandbox';
import { PriceOverridesSchema, type PriceOverrides } from '../model/prices';
import { DEFAULT_MAX_USER_TEXT_BYTES, MAX_USER_TEXT_BYTES_CEILING } from '../session/limits';
import { parseStoreSetting, type StoreSetting } from '../store/storeSetting';

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
  /** This worker's host: its workspaces live here, and it also polls the task queue `agentd-host-<hostId>`. */
  hostId: string;
  /** Run commands without bubblewrap (AGENTD_UNSANDBOXED_COMMANDS=1): an explicit operator choice. */
  unsandboxedCommands: boolean;
  commandLimits: CommandLimits;
  /** How long a stopping worker lets running activities finish before cancelling them. @default 30 */
  shutdownGraceSeconds: number;
  /** Prices per model from `AGENTD_PRICES` (JSON), ahead of gpt-tokenizer's table. */
  prices: PriceOverrides;
  /** Largest task or message the client sends, in UTF-8 bytes (`AGENTD_MAX_USER_TEXT_BYTES`). @default 262144 */
  maxUserTextBytes: number;
  /**
   * Sessions the worker keeps in its workflow cache (`AGENTD_WORKFLOW_CACHE_SIZE`); others are
   * evicted and replayed on their next message. 0 keeps none. @default 50
   */
  workflowCacheSize: number;
  /**
   * Activities the worker runs at once (`AGENTD_MAX_CONCURRENT_ACTIVITIES`): mostly model calls, one
   * per stepping session. @default 1000
   */
  maxConcurrentActivities: number;
  /**
   * Where the worker serves Prometheus metrics (`AGENTD_METRICS_ADDRESS`, host:port; `/metrics`):
   * Temporal's own and agentd's. Unset: no metrics endpoint.
   */
  metricsAddress?: string;
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
    hostId: hostIdOf(env.AGENTD_HOST_ID ?? hostname()),
    unsandboxedCommands: env.AGENTD_UNSANDBOXED_COMMANDS === '1',
    commandLimits: {
      memoryMiB: positiveInt(env, 'AGENTD_COMMAND_MEMORY_MIB', DEFAULT_COMMAND_LIMITS.memoryMiB),
      maxProcesses: positiveInt(env, 'AGENTD_COMMAND_MAX_PROCESSES', DEFAULT_COMMAND_LIMITS.maxProcesses),
      cpus: positiveInt(env, 'AGENTD_COMMAND_CPUS', DEFAULT_COMMAND_LIMITS.cpus),
    },
    shutdownGraceSeconds: shutdownGraceSeconds(env.AGENTD_SHUTDOWN_GRACE_SECONDS),
    prices: readPrices(env.AGENTD_PRICES),
    ...(env.AGENTD_METRICS_ADDRESS ? { metricsAddress: metricsAddressOf(env.AGENTD_METRICS_ADDRESS) } : {}),
    maxUserTextBytes: readMaxUserTextBytes(env.AGENTD_MAX_USER_TEXT_BYTES),
    workflowCacheSize: readWorkflowCacheSize(env.AGENTD_WORKFLOW_CACHE_SIZE),
    maxConcurrentActivities: positiveInt(env, 'AGENTD_MAX_CONCURRENT_ACTIVITIES', DEFAULT_MAX_CONCURRENT_ACTIVITIES),
  };
}

/**
 * 0 (no cache) or 2 and up: the SDK bumps 1 to 2 with a warning, and it cannot run a task it could
 * not cache with fewer. The upper bound only catches typos (a million sessions of ~1.8 MB each).
 */
const WorkflowCacheSizeSchema = z.coerce
  .number()
  .int()
  .min(0)
  .max(100_000)
  .refine((size) => size !== 1, { message: 'must be 0 (no cache) or at least 2' });

function readWorkflowCacheSize(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_WORKFLOW_CACHE_SIZE;
  const parsed = WorkflowCacheSizeSchema.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(`AGENTD_WORKFLOW_CACHE_SIZE: expected a whole number of sessions (0, or 2 to 100000), got '${value}': ${parsed.error.issues[0]?.message ?? 'invalid'}`, { cause: parsed.error });
  }
  return parsed.data;
}

function readMaxUserTextBytes(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_MAX_USER_TEXT_BYTES;
  const bytes = Number(value);
  // Past 1.5 MiB a message no longer fits one Temporal payload (2 MiB) beside the activity input that stores it.
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > MAX_USER_TEXT_BYTES_CEILING) {
    throw new ConfigError(`AGENTD_MAX_USER_TEXT_BYTES: expected a whole number of bytes from 1 to ${MAX_USER_TEXT_BYTES_CEILING}, got '${value}'`);
  }
  return bytes;
}

/** host:port, the host a name, an IPv4 address or a bracketed IPv6 one. */
function metricsAddressOf(raw: string): string {
  const value = raw.trim();
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  if (!match || Number(match[2]) > 65_535) throw new ConfigError(`AGENTD_METRICS_ADDRESS: expected host:port (e.g. 0.0.0.0:9464), got '${raw}'`);
  return value;
}

/** A host id becomes part of a task queue name, so it is kept to a safe alphabet. */
function hostIdOf(raw: string): string {
  const id = raw.trim();
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(id)) {
    throw new ConfigError(`AGENTD_HOST_ID ${JSON.stringify(raw)} must be 1-100 letters, digits, '.', '_' or '-'`);
  }
  return id;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`${name}: expected a whole number > 0, got '${raw}'`);
  return value;
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
