/**
 * The summarize activity's input for a summary compaction (DESIGN §5): where the summary and the
 * memory beside it are stored, what they cover, and which request the summary request repeats so
 * the provider's prompt cache serves it.
 */
import type { SummarizeInput } from '../activities/types';
import { rangeWithin } from '../model/summaryFormat';
import { fromSeqRuns, originalsOfSeqs, toSeqRuns, type CompactDecision, type LedgerEntry, type ResolvedCompactionSettings, type SeqRun } from '../policy';

export interface SummaryInputParts {
  readonly sessionId: string;
  readonly model: string;
  readonly settings: ResolvedCompactionSettings;
  /** Live seqs of the newest answered model request (the carry's `lastRequest`). */
  readonly lastRequest: SeqRun[] | undefined;
  /** The summary's seq, and the memory's (absent in histories from before the session memory). */
  readonly seq: number;
  readonly memorySeq: number | undefined;
}

export function summaryInputOf(parts: SummaryInputParts, ledger: readonly LedgerEntry[], decision: CompactDecision): SummarizeInput {
  const memory =
    parts.memorySeq === undefined
      ? {}
      : { memorySeq: parts.memorySeq, memoryBudgetTokens: decision.memoryBudgetTokens, kept: originalsOfSeqs(ledger, [...decision.pinned, ...decision.tail]) };
  return {
    sessionId: parts.sessionId,
    seq: parts.seq,
    pinned: toSeqRuns(decision.pinned),
    region: decision.summarize,
    covers: decision.covers,
    model: parts.model,
    budgetTokens: decision.summaryBudgetTokens,
    contextWindow: parts.settings.contextWindow,
    ...memory,
    ...requestToRepeat(parts, ledger, decision),
    trimToBudget: parts.settings.trimLongSummaries,
  };
}

/**
 * The newest answered request when it holds the region, else the context as it stands (a second
 * compaction before any model call), whose prefix the newest request shares.
 */
function requestToRepeat(parts: SummaryInputParts, ledger: readonly LedgerEntry[], decision: CompactDecision): { request?: SeqRun[] } {
  if (parts.settings.summaryRequest !== 'continue') return {};
  const last = parts.lastRequest;
  if (last && rangeWithin(fromSeqRuns(last), fromSeqRuns(decision.summarize))) return { request: last };
  return { request: toSeqRuns(ledger.map((entry) => entry.seq)) };
}
