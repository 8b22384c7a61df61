/**
 * Size of a head-and-tail view of a tool result: the expected tokens after cutting it to its first
 * and last characters plus a marker naming the original seq. Pure; the cut itself is an activity.
 */
import type { LedgerEntry } from './ledger';

/**
 * Tokens allowed for the marker between head and tail ("[… N chars cut; read_output seq S …]").
 * Generous on purpose: under-estimating a view would make a compaction miss its target.
 */
export const VIEW_MARKER_TOKENS = 48;

/** Smallest view a tail cut goes down to: below this a tool result stops being useful at all. */
export const MIN_VIEW_CHARS = 512;

/** One tool result to replace with a head-and-tail view. */
export interface ViewCut {
  /** Live seq of the entry to replace (an original, or a view re-cut smaller from its original). */
  readonly seq: number;
  /** Characters kept from the start of the original. */
  readonly headChars: number;
  /** Characters kept from the end of the original. */
  readonly tailChars: number;
  /** Tokens of the entry before the cut. */
  readonly tokensBefore: number;
  /** Tokens expected after the cut: tokens × kept/chars, rounded up, plus the marker allowance. */
  readonly expectedTokens: number;
}

/** Expected tokens of a view keeping `keptChars` of `entry`, assuming tokens spread evenly over chars. */
function viewTokens(entry: Pick<LedgerEntry, 'tokens' | 'chars'>, keptChars: number): number {
  if (entry.chars <= 0) return entry.tokens + VIEW_MARKER_TOKENS;
  return Math.ceil((entry.tokens * Math.min(keptChars, entry.chars)) / entry.chars) + VIEW_MARKER_TOKENS;
}

/** The cut keeping `headChars` + `tailChars`, or undefined when it would not make the entry smaller. */
export function viewCut(
  entry: Pick<LedgerEntry, 'seq' | 'tokens' | 'chars'>,
  headChars: number,
  tailChars: number,
): ViewCut | undefined {
  if (entry.chars <= headChars + tailChars) return undefined;
  const expectedTokens = viewTokens(entry, headChars + tailChars);
  if (expectedTokens >= entry.tokens) return undefined;
  return { seq: entry.seq, headChars, tailChars, tokensBefore: entry.tokens, expectedTokens };
}

/** Splits `totalChars` between head and tail in the configured head:tail proportion. */
export function splitView(totalChars: number, headChars: number, tailChars: number): { head: number; tail: number } {
  const configured = headChars + tailChars;
  if (configured <= 0) return { head: totalChars, tail: 0 };
  const head = Math.round((totalChars * headChars) / configured);
  return { head, tail: totalChars - head };
}
