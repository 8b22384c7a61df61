/**
 * What a summary found already stored cost when it was written: a retried summarize attempt whose
 * attempt before stored the summary and then died returns this, so the ledger and the budget guards
 * count calls the endpoint did answer and bill. Pure: reads the stored row's meta.
 */
import { z } from 'zod';
import { ModelUsageSchema, type SummarizeSpent } from './types';

/** The meta a summary row is stored with, as far as its cost goes; rows from before either field lack it. */
const StoredSummaryMetaSchema = z.object({
  usage: ModelUsageSchema.optional(),
  /** Model calls the summary took (chunks); rows that do not say took at least one. */
  calls: z.number().int().positive().optional(),
});
export type StoredSummaryMeta = z.infer<typeof StoredSummaryMetaSchema>;

/** The stored summary's usage and calls; nothing is possibly billed, as the answer did reach the store. */
export function storedSummarySpent(meta: Readonly<Record<string, unknown>>): SummarizeSpent {
  const parsed = StoredSummaryMetaSchema.safeParse(meta);
  const stored = parsed.success ? parsed.data : {};
  return {
    usage: stored.usage ?? { promptTokens: 0, completionTokens: 0 },
    calls: stored.calls ?? 1,
    possiblyBilledCalls: 0,
  };
}
