/**
 * The price table behind the spend ledger: USD per million tokens by model. Resolved when a session
 * starts without one — at the client (an override, then gpt-tokenizer's model table as plain data in
 * modelTable.gen.ts, then the simulator's nominal price), or in the workflow from the same table when
 * a stock client started it — so the loop only multiplies numbers it was given.
 */
import { z } from 'zod';
import { PriceSchema, type Price } from '../policy/spend';
import { SIMULATOR_MODEL } from './knownModels';
import { MODEL_TABLE } from './modelTable.gen';

/**
 * Nominal, not a real bill: set so simulated sessions have costs to show and guard. Chosen to be the
 * same order as a mid-size hosted model ($2 in, $0.50 cached in, $8 out per million tokens).
 */
export const SIMULATOR_PRICE: Readonly<Price> = Object.freeze({ inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 });

/** `AGENTD_PRICES`: a JSON object of model name → price, e.g. `{"qwen2.5-coder":{"inputPerMillion":0.2,"outputPerMillion":0.6}}`. */
export const PriceOverridesSchema = z.record(z.string(), PriceSchema);
export type PriceOverrides = z.infer<typeof PriceOverridesSchema>;

/** gpt-tokenizer's per-million prices of its main (non-batch) API, when it has both input and output. */
export function tokenizerPrice(model: string): Price | undefined {
  const price = Object.hasOwn(MODEL_TABLE, model) ? MODEL_TABLE[model]?.price : undefined;
  return price === undefined ? undefined : { ...price };
}

/** The price of `model`: the override first, then what gpt-tokenizer knows, then the simulator's nominal one. */
export function knownPrice(model: string, overrides: PriceOverrides = {}): Price | undefined {
  const override = overrides[model];
  if (override) return override;
  if (model === SIMULATOR_MODEL) return { ...SIMULATOR_PRICE };
  return tokenizerPrice(model);
}
