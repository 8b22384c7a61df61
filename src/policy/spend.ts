/**
 * The spend ledger's arithmetic: token counts per kind of call and their cost from a price table.
 * Pure: prices arrive as numbers (resolved at the client before start), usage as the endpoint reported it.
 */
import { z } from 'zod';

/** USD per million tokens. Cached prompt tokens are billed at `cachedInputPerMillion`, or at the input price when it is absent. */
export const PriceSchema = z
  .object({
    inputPerMillion: z.number().nonnegative(),
    outputPerMillion: z.number().nonnegative(),
    cachedInputPerMillion: z.number().nonnegative().optional(),
  })
  .strict();
export type Price = z.infer<typeof PriceSchema>;

/** Tokens of one model call as the endpoint reported them; `cachedTokens` is part of `promptTokens`. */
export interface CallTokens {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

/** Totals of one kind of call (the agent's own, or compaction summaries). */
export interface CallSpend {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the endpoint served from its prompt cache (0 when it does not report them). */
  cachedTokens: number;
  costUsd: number;
  /**
   * Requests that may have been answered and billed although no answer reached the session (sent
   * again after a worker crash or a retried failure); their tokens are unknown, so they are in no
   * total above. Absent while there were none.
   */
  possiblyBilledCalls?: number;
}

export const NO_SPEND: Readonly<CallSpend> = Object.freeze({ calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 });

const MILLION = 1_000_000;

/** The cached part of a prompt, held to 0..`promptTokens` so a stray report cannot price or share past it. */
function cachedPart(cachedTokens: number, promptTokens: number): number {
  return Math.min(Math.max(cachedTokens, 0), promptTokens);
}

/** Cost of one call; zero without a price (the ledger then says the cost is unknown). */
export function costOf(tokens: CallTokens, price: Price | undefined): number {
  if (!price) return 0;
  const cached = cachedPart(tokens.cachedTokens ?? 0, tokens.promptTokens);
  const fresh = tokens.promptTokens - cached;
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  return (fresh * price.inputPerMillion + cached * cachedPrice + tokens.completionTokens * price.outputPerMillion) / MILLION;
}

/** `spend` plus `calls` calls that used `tokens`, priced with `price`. */
export function addSpend(spend: CallSpend, tokens: CallTokens, price: Price | undefined, calls = 1): CallSpend {
  return {
    ...spend,
    calls: spend.calls + calls,
    promptTokens: spend.promptTokens + tokens.promptTokens,
    completionTokens: spend.completionTokens + tokens.completionTokens,
    cachedTokens: spend.cachedTokens + (tokens.cachedTokens ?? 0),
    costUsd: spend.costUsd + costOf(tokens, price),
  };
}

/** `spend` with `calls` more requests that may have been billed without their answer reaching us. */
export function addPossiblyBilled(spend: CallSpend, calls: number): CallSpend {
  return calls <= 0 ? spend : { ...spend, possiblyBilledCalls: (spend.possiblyBilledCalls ?? 0) + calls };
}

/** Two ledgers added up, possibly billed calls included. */
export function sumSpend(a: CallSpend, b: CallSpend): CallSpend {
  return addPossiblyBilled(
    {
      calls: a.calls + b.calls,
      promptTokens: a.promptTokens + b.promptTokens,
      completionTokens: a.completionTokens + b.completionTokens,
      cachedTokens: a.cachedTokens + b.cachedTokens,
      costUsd: a.costUsd + b.costUsd,
      ...(a.possiblyBilledCalls ? { possiblyBilledCalls: a.possiblyBilledCalls } : {}),
    },
    b.possiblyBilledCalls ?? 0,
  );
}

/** A `CallSpend` as the `state` query shows it: with what the prompt cache served and what it did not. */
export interface CallSpendReport extends CallSpend {
  /** Prompt tokens billed at the full input rate: `promptTokens - cachedTokens`. */
  uncachedTokens: number;
  /** `cachedTokens / promptTokens`, 0 to 1; 0 while there were no prompt tokens. */
  cacheHitRatio: number;
}

/** Share of `promptTokens` the endpoint served from its prompt cache; 0 with no prompt. */
export function cacheHitRatio(cachedTokens: number, promptTokens: number): number {
  return promptTokens > 0 ? cachedPart(cachedTokens, promptTokens) / promptTokens : 0;
}

/** `spend` with its cached and uncached prompt tokens apart, and its cache-hit ratio. */
export function reportSpend(spend: CallSpend): CallSpendReport {
  return {
    ...spend,
    uncachedTokens: Math.max(spend.promptTokens - spend.cachedTokens, 0),
    cacheHitRatio: cacheHitRatio(spend.cachedTokens, spend.promptTokens),
  };
}

/** Everything billed: prompt plus completion tokens of every call, summaries included. */
export function totalTokens(...spends: readonly CallSpend[]): number {
  return spends.reduce((sum, spend) => sum + spend.promptTokens + spend.completionTokens, 0);
}

export function totalCost(...spends: readonly CallSpend[]): number {
  return spends.reduce((sum, spend) => sum + spend.costUsd, 0);
}
