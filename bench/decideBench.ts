/** Benchmark 3, decision cost: bench/decide.ts's measurement, reported with the others. */
import { DECIDE_WINDOW, decideTable, measureDecide } from './decide';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';

export function decideBench(): BenchBody {
  const rows = measureDecide();
  for (const line of decideTable(rows)) say(line);
  return {
    figures: { contextWindow: DECIDE_WINDOW, request: 'manual', rows },
    markdown: [
      `Ledgers of generated sessions (turns of steps with 0–4 tool calls, bodies of 100 B–30 KB), a ${int(DECIDE_WINDOW)}-token window,`,
      'a manual request (the full plan: tail, prune and summary region). Baseline: what a design without a',
      'ledger does before each model call — `countTokens` (gpt-tokenizer) on every body, then the same `decide`.',
      `Also runs alone as \`npm run bench:decide\`.`,
      '',
      ...table(
        ['ledger entries', 'bodies', '`decide` per call', 'baseline per call', 'baseline ÷ decide'],
        rows.map((row) => [
          int(row.entries),
          `${num(row.bodyChars / 1e6, 1)} MB, ${num(row.bodyTokens / 1e6, 2)}M tokens`,
          `${num(row.decideMsPerCall, 3)} ms (${row.decideCalls} calls)`,
          `${num(row.baselineMsPerCall, 1)} ms (${row.baselineCalls} calls)`,
          `**${ratio(row.baselineMsPerCall, row.decideMsPerCall)}**`,
        ]),
      ),
    ],
  };
}
