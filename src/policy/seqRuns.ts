/**
 * The live context as compact runs of seqs: activity inputs stay a few bytes even when the context
 * holds thousands of messages, because the context is mostly contiguous. Pure.
 */

/** An inclusive run of consecutive seqs, `[first, last]`. */
export type SeqRun = readonly [first: number, last: number];

/** Compresses seqs, in context order, into runs; order is preserved, so non-monotonic contexts work. */
export function toSeqRuns(seqs: readonly number[]): SeqRun[] {
  const runs: Array<[number, number]> = [];
  for (const seq of seqs) {
    const last = runs[runs.length - 1];
    if (last && seq === last[1] + 1) last[1] = seq;
    else runs.push([seq, seq]);
  }
  return runs;
}

/** The seqs the runs stand for, in order. */
export function fromSeqRuns(runs: readonly SeqRun[]): number[] {
  const seqs: number[] = [];
  for (const [first, last] of runs) {
    for (let seq = first; seq <= last; seq++) seqs.push(seq);
  }
  return seqs;
}
