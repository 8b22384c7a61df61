/** The memory's always-present section: which seqs left the context, and how to get them back. Pure. */
import { fromSeqRuns, type SeqRun } from '../../policy/seqRuns';
import type { MemoryRow } from './memoryRow';

const RUNS_SHOWN = 20;

/** The seqs of `originals` that left the context: summarized, or dropped by a truncation. */
export function leftSeqs(originals: readonly MemoryRow[], kept: readonly SeqRun[]): Set<number> {
  const keptSeqs = new Set(fromSeqRuns(kept));
  return new Set(originals.map((row) => row.seq).filter((seq) => !keptSeqs.has(seq)));
}

/**
 * What left the context (`left`, from `leftSeqs`) and how to get it back: always there, whatever
 * the budget. A seq that left and is not summarized was dropped by a truncation. Runs are counted
 * over `originals`: the seqs between two runs that only agentd's own rows took (earlier summaries
 * and memory blocks) do not split them, so a session that compacted a hundred times still names
 * one run, not a hundred.
 */
export function leftSection(left: ReadonlySet<number>, summarizedRuns: readonly SeqRun[], originals: readonly MemoryRow[]): string[] {
  const summarized = new Set(fromSeqRuns(summarizedRuns));
  const truncated = new Set([...left].filter((seq) => !summarized.has(seq)));
  return [
    '## What left the context, and how to get it back',
    ...(summarized.size > 0 ? [`- Summarized (the summary below stands for them): seqs ${runsText(runsAmong(originals, summarized))}.`] : []),
    ...(truncated.size > 0 ? [`- Dropped without a summary (emergency truncation): seqs ${runsText(runsAmong(originals, truncated))}.`] : []),
    '- Every original is kept in the transcript store: search_transcript finds words in them and returns seqs with',
    '  snippets; read_output with a seq pages through that original (a tool output, a message or tool-call arguments).',
  ];
}

/** The runs of `originals` (in seq order) whose seqs are all in `chosen`. */
export function runsAmong(originals: readonly MemoryRow[], chosen: ReadonlySet<number>): SeqRun[] {
  const runs: Array<[number, number]> = [];
  let open: [number, number] | undefined;
  for (const { seq } of originals) {
    if (!chosen.has(seq)) {
      open = undefined;
      continue;
    }
    if (open) open[1] = seq;
    else runs.push((open = [seq, seq]));
  }
  return runs;
}

/** Runs as text; a long list keeps its first and last runs (search_transcript still finds the rest). */
function runsText(runs: readonly SeqRun[]): string {
  if (runs.length === 0) return 'none';
  const text = (run: SeqRun): string => (run[0] === run[1] ? `${run[0]}` : `${run[0]}-${run[1]}`);
  if (runs.length <= RUNS_SHOWN) return runs.map(text).join(', ');
  const half = RUNS_SHOWN / 2;
  return [...runs.slice(0, half).map(text), `… ${runs.length - RUNS_SHOWN} more runs …`, ...runs.slice(-half).map(text)].join(', ');
}
