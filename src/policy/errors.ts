/**
 * Errors of the policy module: programming errors only (a decision applied to another ledger,
 * activity results that do not match the decision). "Nothing to do" is never an error. Pure.
 */

/** Closed set of codes; the workflow maps them to a non-retryable `ApplicationFailure` type. */
export const CompactionErrorCode = {
  /** The ledger changed between `decide` and `applyCompaction`: seqs the decision names are gone. */
  staleDecision: 'CompactionStaleDecision',
  /** The activity results miss a view or summary the decision asked for, or bring ones it did not. */
  resultsMismatch: 'CompactionResultsMismatch',
} as const;
export type CompactionErrorCode = (typeof CompactionErrorCode)[keyof typeof CompactionErrorCode];

export class CompactionError extends Error {
  override readonly name = 'CompactionError';
  constructor(
    readonly code: CompactionErrorCode,
    message: string,
  ) {
    super(message);
  }
}
