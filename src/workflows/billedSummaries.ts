/** The session's summarize activity, wrapped so that every summary call is counted where it is billed. */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { summarizeFailureDetails, type SummarizeInput, type SummarizeResult } from '../activities/types';
import type { CallSpend } from '../policy';
import type { SessionActivities } from './activityOptions';
import type { CompactionActivities } from './compactionController';
import type { SessionBudget } from './sessionBudget';

/**
 * Summary calls are billed too: the spend ledger counts them apart from the agent's own, and the
 * compaction's notice carries what they cost (`onBilled`), priced where the ledger prices them.
 */
export function billedSummaries(
  summarize: SessionActivities['summarize'],
  /** Adds what the session tells every model activity: its tools (a summary request lists the agent's, for the prompt cache) and the step's trace. */
  withSession: (request: SummarizeInput) => SummarizeInput,
  budget: SessionBudget,
  onBilled: (spend: CallSpend) => void,
): CompactionActivities['summarize'] {
  return async (request: SummarizeInput): Promise<SummarizeResult> => {
    let result;
    try {
      result = await summarize(withSession(request));
    } catch (error) {
      // A rejected summary was answered, and billed, all the same (DESIGN §6 "Spend under crashes").
      const spent = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? summarizeFailureDetails(error.cause.details?.[0]).spent : undefined;
      if (spent) onBilled(budget.recordSummary(spent.usage, spent.calls, spent.possiblyBilledCalls));
      throw error;
    }
    onBilled(budget.recordSummary(result.usage, result.calls, result.possiblyBilledCalls ?? 0));
    return result;
  };
}
