/**
 * After a truncation, a fresh session memory (DESIGN §5 "Session memory"): what the dropped steps
 * held of the user's words and the artifact trail stays in the context though no summary was written.
 */
import { ActivityFailure, log } from '@temporalio/workflow';
import { appendOriginals, LedgerKind, toSeqRuns, withSessionMemory, type AppliedCompaction, type TruncateDecision } from '../policy';
import type { SessionActivities } from './activityOptions';

export async function rememberDropped(
  sessionId: string,
  storeSessionMemory: SessionActivities['storeSessionMemory'],
  memorySeq: number,
  applied: AppliedCompaction,
  decision: TruncateDecision,
): Promise<AppliedCompaction> {
  const pinned: number[] = [];
  const summarized: number[] = [];
  const kept: number[] = [];
  for (const entry of applied.ledger) {
    if (entry.pinned) pinned.push(entry.seq);
    if (entry.kind === LedgerKind.summary) appendOriginals(summarized, entry);
    else appendOriginals(kept, entry);
  }
  try {
    const memory = await storeSessionMemory({
      sessionId,
      memorySeq,
      pinned: toSeqRuns(pinned),
      summarized: toSeqRuns(summarized.sort((a, b) => a - b)),
      kept: toSeqRuns(kept.sort((a, b) => a - b)),
      budgetTokens: decision.memoryBudgetTokens ?? 0,
    });
    return withSessionMemory(applied, memory, decision.projection);
  } catch (error) {
    // A memory that cannot be stored (the store is down past the activity's retries) leaves the truncation as it was.
    if (!(error instanceof ActivityFailure)) throw error;
    log.warn('session memory not stored after a truncation', { sessionId, why: error.cause?.message ?? error.message });
    return applied;
  }
}
