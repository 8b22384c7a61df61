/**
 * Settings read from the environment, in one place, with the embedded defaults: local dev server,
 * SQLite files under `.agentd/`, and the simulator when no model endpoint is configured.
 */
import { join, resolve } from 'node:path';
import { SIMULATOR_MODEL } from './model/knownModels';
import { PriceOverridesSchema, type PriceOverrides } from './model/prices';

export interface AgentdConfig {
  temporalAddress: string;
  namespace: string;
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
  /** Prices per model from `AGENTD_PRICES` (JSON), ahead of gpt-tokenizer's table. */
  prices: PriceOverrides;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): AgentdConfig {
  const home = resolve(env.AGENTD_HOME ?? '.agentd');
  const usesSimulator = !env.OPENAI_API_KEY && !env.OPENAI_BASE_URL;
  return {
    temporalAddress: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    home,
    storeFile: resolve(env.AGENTD_STORE ?? join(home, 'transcripts.db')),
    workspaceRoot: resolve(env.AGENTD_WORKSPACES ?? join(home, 'workspaces')),
    ...(env.OPENAI_BASE_URL ? { modelBaseURL: env.OPENAI_BASE_URL } : {}),
    hasApiKey: Boolean(env.OPENAI_API_KEY),
    ...(env.AGENTD_MODEL || usesSimulator ? { defaultModel: env.AGENTD_MODEL ?? SIMULATOR_MODEL } : {}),
    prices: readPrices(env.AGENTD_PRICES),
  };
}

function readPrices(text: string | undefined): PriceOverrides {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`AGENTD_PRICES: not JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  const parsed = PriceOverridesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`AGENTD_PRICES: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`, { cause: parsed.error });
  }
  return parsed.data;
}

/** True when no endpoint is configured and the worker should answer with the built-in simulator. */
export function usesSimulator(config: AgentdConfig): boolean {
  return !config.hasApiKey && config.modelBaseURL === undefined;
}
