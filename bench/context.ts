/**
 * Benchmark 6, context over time: an SVG chart of the context each step sent (prompt tokens as the
 * simulator counted them) with the window, the trigger and every compaction marked. Drawn from the
 * tokens benchmark's two runs (compaction on and off) when it ran, else from runs of its own.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Stack } from '../harness/stack';
import { int, say, table, type BenchBody } from './lib/result';
import { renderContextChart } from '../src/chart/svgChart';
import { runTokenSessions, TOKENS_WINDOW, type TokensRuns } from './tokens';

export const CHART_FILE = 'context.svg';

export async function contextBench(stack: Stack, runs: TokensRuns | undefined, resultsDir: string): Promise<BenchBody> {
  const { on, off } = runs ?? (await runTokenSessions(stack));
  const notices = on.notices.filter((notice) => notice.failed === undefined);
  const trigger = on.state.compaction.trigger;
  const svg = renderContextChart({
    title: `Context per step, ${int(TOKENS_WINDOW)}-token window, 20 KB tool outputs every 4th step (simulated model)`,
    steps: on.stepTokens.length,
    window: TOKENS_WINDOW,
    trigger,
    series: [
      { label: 'compaction off (fails at the window)', color: '#95a5a6', values: off.stepTokens, dashed: true },
      { label: 'agentd, compaction on', color: '#2471a3', values: on.stepTokens },
    ],
    marks: notices.map((notice) => ({ step: notice.step, label: notice.strategy, before: notice.tokensBefore, after: notice.tokensAfter })),
    ...(off.failure === undefined ? {} : { refused: { step: off.state.step, label: `compaction off: step ${off.state.step} refused, over the window` } }),
  });
  await writeFile(join(resultsDir, CHART_FILE), svg);
  say(`wrote bench/results/${CHART_FILE}: ${on.stepTokens.length} steps, ${notices.length} compactions marked`);
  const shown = on.state.compaction.noticesTotal > on.notices.length ? ` (the state query keeps the newest ${on.notices.length} of ${on.state.compaction.noticesTotal} notices; older ones are not marked)` : '';
  return {
    figures: {
      file: `bench/results/${CHART_FILE}`,
      window: TOKENS_WINDOW,
      trigger,
      onStepTokens: on.stepTokens,
      offStepTokens: off.stepTokens,
      compactions: notices.map(({ step, strategy, reason, tokensBefore, tokensAfter }) => ({ step, strategy, reason, tokensBefore, tokensAfter })),
    },
    markdown: [
      `![context tokens per step](${CHART_FILE})`,
      '',
      `The runs of benchmark 4: each point is a step's request as the simulator counted it (the context the workflow sent,`,
      `tool schemas included). Window ${int(TOKENS_WINDOW)}, trigger ${int(trigger)} (window − reserveTokens). Each compaction is a`,
      `vertical line; its thick bar runs from the workflow's estimate before to its estimate after${shown}.`,
      '',
      ...table(
        ['step', 'strategy', 'reason', 'estimate before', 'estimate after'],
        notices.map((notice) => [String(notice.step), notice.strategy, notice.reason, int(notice.tokensBefore), int(notice.tokensAfter)]),
      ),
    ],
  };
}
