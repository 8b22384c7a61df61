/**
 * What carrying a decision out leaves behind (`applyCompaction`, `applyTruncation`): the new live
 * context and the event the workflow turns into the session's compaction notice. Kept apart from
 * the decision's shapes: `decide` never builds these, only the step after it does.
 */
import type { CompactionRequest, CompactionStrategy, TruncationCause } from './decision';
import type { LedgerEntry } from './ledger';
import type { SeqRun } from './seqRuns';

/** One replaced entry, citing its original, so every original stays findable (DESIGN §5 "Nothing vanishes"). */
export interface Replacement {
  /** Live seq that was replaced. */
  readonly originalSeq: number;
  /** Seq of the view that replaces it. */
  readonly replacementSeq: number;
  /** Our tokens before. */
  readonly tokensBefore: number;
  /** Our tokens after. */
  readonly tokensAfter: number;
}

/** What the context record says about one compaction or truncation; the workflow adds `at`, `turn`, `step`. */
export interface CompactionEvent {
  readonly requestedBy: CompactionRequest;
  /** `prune`, `summary` or `truncate`. */
  readonly strategy: CompactionStrategy | 'truncate';
  /** Estimate before (server tokens). */
  readonly tokensBefore: number;
  /** Estimate of the new context (server tokens), projected the same way as the decision. */
  readonly tokensAfter: number;
  /** Original seqs the new summary covers (merged with a previous summary's); empty otherwise. */
  readonly coveredSeqs: SeqRun[];
  /** Original seqs a truncation dropped from the context (still in the store); empty otherwise. */
  readonly truncatedSeqs: SeqRun[];
  /** Views that replaced entries. */
  readonly replaced: Replacement[];
  /** The summary and what it replaced (strategy `summary`). */
  readonly summary?: {
    /** Seq of the summary entry. */
    readonly seq: number;
    /** Live seqs it replaced, in ledger order. */
    readonly replacesSeqs: SeqRun[];
    /** Our tokens of what it replaced. */
    readonly tokensBefore: number;
    /** Our tokens of the summary. */
    readonly tokensAfter: number;
  };
  /** What made a truncation necessary (strategy `truncate`). */
  readonly cause?: TruncationCause;
}

/** A new live context and the event recording how it came about. */
export interface AppliedCompaction {
  /** The new live context. */
  readonly ledger: LedgerEntry[];
  /** The event to append to the session's compaction record. */
  readonly event: CompactionEvent;
}
