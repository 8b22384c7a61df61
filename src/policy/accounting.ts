/**
 * "Nothing vanishes" (DESIGN §5): every original seq is in exactly one place — in the live context
 * (itself or through a view), covered by a summary, or listed in a truncation event. Pure; the
 * property tests and the workflow's own checks use it.
 */
import { LedgerKind, type LedgerEntry } from './ledger';
import { toSeqRuns, type SeqRun } from './seqRuns';

/**
 * Appends to `out` the original seqs a live entry stands for: itself, the original a view cuts, or
 * what a summary covers; none for the session memory (it quotes originals that are accounted for
 * elsewhere). No spread: a summary can cover more seqs than a call takes arguments.
 */
export function appendOriginals(out: number[], entry: LedgerEntry): void {
  if (entry.kind === LedgerKind.memory) return;
  if (entry.kind === LedgerKind.summary) {
    for (const [first, last] of entry.covers ?? []) for (let seq = first; seq <= last; seq++) out.push(seq);
  } else {
    out.push(entry.kind === LedgerKind.view ? (entry.replaces ?? entry.seq) : entry.seq);
  }
}

/** The originals the live entries `seqs` of `ledger` stand for, as ascending runs. */
export function originalsOfSeqs(ledger: readonly LedgerEntry[], seqs: readonly number[]): SeqRun[] {
  const wanted = new Set(seqs);
  const originals: number[] = [];
  for (const entry of ledger) if (wanted.has(entry.seq)) appendOriginals(originals, entry);
  return toSeqRuns(originals.sort((a, b) => a - b));
}

export interface AccountingReport {
  /** Every original is in exactly one place and nothing else is claimed. */
  readonly ok: boolean;
  /** Originals found nowhere. */
  readonly missing: number[];
  /** Originals found in more than one place (or twice in one). */
  readonly duplicated: number[];
  /** Seqs claimed as originals that were never originals (a view or summary seq leaking in). */
  readonly unexpected: number[];
}

/**
 * Checks `originals` (every seq ever stored as a message) against the live ledger and the seqs
 * truncation events list.
 */
export function accounting(
  originals: Iterable<number>,
  live: readonly LedgerEntry[],
  truncated: Iterable<number>,
): AccountingReport {
  const seen = new Map<number, number>();
  const expected = new Set(originals);
  const note = (seq: number): void => {
    seen.set(seq, (seen.get(seq) ?? 0) + 1);
  };
  const liveOriginals: number[] = [];
  for (const entry of live) appendOriginals(liveOriginals, entry);
  for (const seq of liveOriginals) note(seq);
  for (const seq of truncated) note(seq);
  const missing: number[] = [];
  const duplicated: number[] = [];
  const unexpected: number[] = [];
  for (const seq of expected) {
    const times = seen.get(seq) ?? 0;
    if (times === 0) missing.push(seq);
    else if (times > 1) duplicated.push(seq);
  }
  for (const seq of seen.keys()) if (!expected.has(seq)) unexpected.push(seq);
  const ascending = (a: number, b: number): number => a - b;
  missing.sort(ascending);
  duplicated.sort(ascending);
  unexpected.sort(ascending);
  return { ok: missing.length + duplicated.length + unexpected.length === 0, missing, duplicated, unexpected };
}
