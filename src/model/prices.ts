/**
 * The price table behind the spend ledger: USD per million tokens by model. Resolved at the client
 * before start (an override, then gpt-tokenizer's model table, then the simulator's nominal price),
 * so the workflow only multiplies numbers it was given.
 */
import * as openaiModels from 'gpt-tokenizer/models.gen';
import { z } from 'zod';
import { PriceSchema, type Price } from '../policy/spend';
import { SIMULATOR_MODEL } from './knownModels';

/**
 * Nominal, not a real bill: set so simulated sessions have costs to show and guard. Chosen to be the
 * same order as a mid-size hosted model ($2 in, $0.50 cached in, $8 out per million tokens).
 */
export const SIMULATOR_PRICE: Readonly<Price> = Object.freeze({ inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 });

/** `AGENTD_PRICES`: a JSON object of model name → price, e.g. `{"qwen2.5-coder":{"inputPerMillion":0.2,"outputPerMillion":0.6}}`. */
export const PriceOverridesSchema = z.record(z.string(), PriceSchema);
export type PriceOverrides = z.infer<typeof PriceOverridesSchema>;

interface PriceData {
  readonly main?: { readonly input?: number; readonly output?: number; readonly cached_input?: number };
}

/** gpt-tokenizer's per-million prices of its main (non-batch) API, when it has both input and output. */
export function tokenizerPrice(model: string): Price | undefined {
  const spec = (openaiModels as Record<string, { price_data?: PriceData } | undefined>)[model];
  const main = spec?.price_data?.main;
  if (typeof main?.input !== 'number' || typeof main.output !== 'number') return undefined;
  return {
    inputPerMillion: main.input,
    outputPerMillion: main.output,
    ...(typeof main.cached_input === 'number' ? { cachedInputPerMillion: main.cached_input } : {}),
  };
}

/** The price of `model`: the override first, then what gpt-tokenizer knows, then the simulator's nominal one. */
export function knownPrice(model: string, overrides: PriceOverrides = {}): Price | undefined {
  const override = overrides[model];
  if (override) return override;
  if (model === SIMULATOR_MODEL) return { ...SIMULATOR_PRICE };
  return tokenizerPrice(model);
}
