/**
 * How one compaction relates to the circuit breaker (DESIGN §5 "Degrading gracefully"): whether it
 * is the half-open retry, whether it bypasses the breaker, and what a failure or success does to it.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { ActivityFailureType, summarizeFailureDetails } from '../activities/types';
import { CompactionRequest, type CompactDecision } from '../policy';

/** How one compaction relates to the breaker. */
export interface BreakerRole {
  /** The breaker is open and its cool-down is over: this is the one retry. */
  halfOpen: boolean;
  /** The breaker is open and this is model-free pruning only: it neither counts nor closes. */
  bypass: boolean;
  /** Record failures with step and reason, so the breaker can half-open. */
  graceful: boolean;
}

/** A short reason for the breaker's warning: the rejection kind of a summary, else the failure type. */
export function failureReason(error: ActivityFailure): string {
  const cause = error.cause;
  if (!(cause instanceof ApplicationFailure)) return 'failed';
  if (cause.type === ActivityFailureType.summaryRejected) return summarizeFailureDetails(cause.details?.[0]).rejection ?? 'rejected';
  return cause.type === ActivityFailureType.modelUnavailable ? 'summarizer unavailable' : (cause.type ?? 'failed');
}

/**
 * Whether a successful compaction resets the breaker. The breaker guards the summarizer, so with the
 * graceful rules an automatic prune (which calls no model) says nothing about it and leaves the
 * count alone; a summary, or any manual or reactive compaction, closes it.
 */
export function closesBreaker(decision: CompactDecision, role: BreakerRole): boolean {
  if (role.bypass) return false;
  if (!role.graceful) return true;
  return decision.strategy === 'summary' || decision.requestedBy !== CompactionRequest.auto;
}
