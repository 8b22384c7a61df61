/**
 * Whether a compaction succeeded (DESIGN §5 "Result"): a summary longer than what it replaces, a
 * view no smaller than its original, or a result not under the trigger (over the target, where the
 * decision says it must land there) is a failure, counted by the
 * breaker, so a compaction that cannot shrink the context stops being retried (no death spiral). Pure.
 */
import type { AppliedCompaction } from './compactionEvent';
import type { CompactDecision } from './decision';

/** Why a compaction failed. */
export const VerifyFailure = {
  /** The summary has at least as many tokens as the entries it replaces. */
  summaryNotShorter: 'summary_not_shorter',
  /** A view has at least as many tokens as the entry it replaces. */
  viewNotShorter: 'view_not_shorter',
  /** The new context is still at or over the trigger. */
  notUnderTrigger: 'not_under_trigger',
  /** The new context is over the target it had to land at (DESIGN §5 "Land with room"). */
  notAtTarget: 'not_at_target',
} as const;
export type VerifyFailure = (typeof VerifyFailure)[keyof typeof VerifyFailure];

export type CompactionVerdict =
  | {
      /** The compaction did what it is for. */
      readonly ok: true;
    }
  | {
      readonly ok: false;
      /** What went wrong. */
      readonly code: VerifyFailure;
      /** The numbers involved, for the event log. */
      readonly message: string;
      /**
       * Whether the new context is still worth keeping: true when it is valid and strictly smaller
       * (only short of the trigger), false when it would make the context larger.
       * The failure is counted on the breaker either way.
       */
      readonly adopt: boolean;
    };

/** Checks the applied result of `decision`; the workflow records a breaker failure when `ok` is false. */
export function verifyCompaction(decision: CompactDecision, applied: AppliedCompaction): CompactionVerdict {
  const { event } = applied;
  if (event.summary && event.summary.tokensAfter >= event.summary.tokensBefore) {
    return {
      ok: false,
      code: VerifyFailure.summaryNotShorter,
      message: `summary seq ${event.summary.seq} has ${event.summary.tokensAfter} tokens, not fewer than the ${event.summary.tokensBefore} it replaces`,
      adopt: false,
    };
  }
  const grown = event.replaced.find((replacement) => replacement.tokensAfter >= replacement.tokensBefore);
  if (grown) {
    return {
      ok: false,
      code: VerifyFailure.viewNotShorter,
      message: `view seq ${grown.replacementSeq} has ${grown.tokensAfter} tokens, not fewer than the ${grown.tokensBefore} of seq ${grown.originalSeq}`,
      adopt: false,
    };
  }
  if (event.tokensAfter >= decision.trigger) {
    return {
      ok: false,
      code: VerifyFailure.notUnderTrigger,
      message: `context is ${event.tokensAfter} tokens after compaction, not under the trigger ${decision.trigger}`,
      adopt: event.tokensAfter < event.tokensBefore,
    };
  }
  if (decision.landAt !== undefined && event.tokensAfter > decision.landAt) {
    return {
      ok: false,
      code: VerifyFailure.notAtTarget,
      message: `context is ${event.tokensAfter} tokens after compaction, over the target ${decision.landAt} it must land at`,
      adopt: event.tokensAfter < event.tokensBefore,
    };
  }
  return { ok: true };
}
