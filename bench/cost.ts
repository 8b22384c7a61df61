/**
 * Cost of compaction (issue #25): for each simulator summarizer behaviour, a 120-step session at a
 * 32K window in a busy test-and-fix loop, and in the usual cycle at 32K and at 128K, under agentd's
 * current compaction policy and under the previous policy
 * (BASELINE_COMPACTION), side by side on the real stack. Per session: compactions by strategy, the
 * planted facts still in the last request, the cached share of summary calls and of all calls as the
 * simulator reported it, input cost weighted by the cached price, the breaker, and whether each
 * compaction left the context under the trigger; then current ÷ baseline and the issue's targets,
 * each marked pass or fail. It prints; it does not assert.
 */
import { SIMULATOR_PRICE } from '../src/model/prices';
import type { SummarizerBehaviour } from '../src/simulator/options';
import type { Stack } from '../harness/stack';
import { runBehaviour, type CostRun, type Policy, type SessionShape, type WindowSetup } from './lib/costRun';
import {
  cachedShare,
  factsFigure,
  HOSTED_CACHED_PER_MILLION,
  inputCost,
  judge,
  NOMINAL_CACHED_PER_MILLION,
  pct,
  stepCallTotals,
  underTriggerFigure,
  type TargetLine,
} from './lib/costTargets';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';
import { summarizerBehaviours } from './lib/summarizerArg';

/**
 * `32K busy` runs a command at three steps of four, as an agent in a test-and-fix loop does: it is
 * the regime #25 measured on an outside endpoint, where the previous policy made 24 summaries and 22
 * prunes in 120 steps with a well-behaved summarizer and 72 compactions with a long one (here 22 and
 * 74 in the committed run). The usual cycle runs a command about every fourth step, so compaction is a
 * smaller part of the bill. Outputs are sized so a 120-step session compacts several times at either
 * window: at 32K, 8–10 KB (over pruneMinChars, so pruning is an option); at 128K, 30–34 KB, still far
 * below the oversized-result share of that window.
 */
const SETUPS: readonly WindowSetup[] = [
  { name: '32K busy', window: 32_768, output: '8000-10000', pace: 'busy' },
  { name: '32K', window: 32_768, output: '8000-10000' },
  { name: '128K', window: 131_072, output: '30000-34000' },
];
/** 10 turns of 11 tool steps and an answer: 120 model calls. */
const SHAPE: SessionShape = { turns: 10, turnSteps: 11 };

/**
 * The policy before the cache-aware one, as settings: a standalone summary request, a target of 0.75
 * of the trigger that a compaction need only get under the trigger to meet, pruning whenever it
 * reclaims a quarter, long summaries kept as written.
 */
export const BASELINE_COMPACTION = Object.freeze({
  summaryRequest: 'standalone',
  targetShareOfTrigger: 0.75,
  pruneOnlyWhenItPays: false,
  trimLongSummaries: false,
  mustLandAtTarget: false,
});

const POLICIES: readonly Policy[] = [
  { id: 'current', compaction: {} },
  { id: 'baseline', compaction: BASELINE_COMPACTION },
];

/** `--cost-turns=N` (bench argument): shorter sessions for a smoke run; 10 by default. */
function shape(argv: readonly string[]): SessionShape {
  const turns = Number(argv.find((arg) => arg.startsWith('--cost-turns='))?.slice('--cost-turns='.length));
  return Number.isInteger(turns) && turns >= 1 ? { ...SHAPE, turns } : SHAPE;
}

const usd = (value: number): string => `$${num(value, 4)}`;

function setupText(setup: WindowSetup): string {
  return `${setup.name}, \`run_command\` outputs of ${setup.output} bytes${setup.pace === 'busy' ? ' at three steps of four' : ' about every fourth step'}`;
}

function strategies(run: CostRun): string {
  const failed = run.failedCompactions > 0 ? `, ${run.failedCompactions} failed` : '';
  return `${run.byStrategy.summary}/${run.byStrategy.prune}/${run.byStrategy.truncate}${failed}`;
}

function breaker(run: CostRun): string {
  return run.breaker.open ? `open (${run.breaker.consecutiveFailures} failures)` : `closed${run.breaker.consecutiveFailures > 0 ? ` (${run.breaker.consecutiveFailures} failing)` : ''}`;
}

function ended(run: CostRun): string {
  return `${run.status}${run.outcome ? ` (${run.outcome})` : ''}, ${run.steps}/${run.plannedSteps} steps${run.failure ? `: ${run.failure}` : ''}`;
}

function sayRun(run: CostRun): void {
  say(
    `  ${run.policy.padEnd(8)} ${ended(run)}; compactions s/p/t ${strategies(run)}; facts ${run.factsPresent.length}/${run.factsTotal}; ` +
      `cached: summary ${pct(cachedShare(run.summary))} (${run.summary.calls} calls), all ${pct(cachedShare(run.all))}; ` +
      `input ${usd(inputCost(run.all))} (${usd(inputCost(run.all, HOSTED_CACHED_PER_MILLION))} at a tenth); breaker ${breaker(run)}; ` +
      `under trigger after ${underTriggerFigure(run)}`,
  );
}

function runRow(run: CostRun): string[] {
  return [
    `\`${run.behaviour}\``,
    run.policy,
    ended(run),
    strategies(run),
    factsFigure(run),
    `${pct(cachedShare(run.summary))} of ${run.summary.calls}`,
    pct(cachedShare(run.all)),
    int(run.all.promptTokens),
    usd(inputCost(run.all)),
    usd(inputCost(run.all, HOSTED_CACHED_PER_MILLION)),
    breaker(run),
    underTriggerFigure(run),
  ];
}

interface Comparison {
  readonly behaviour: SummarizerBehaviour;
  readonly setup: string;
  readonly cost: number;
  readonly costAtTenth: number;
  /** Step calls alone, current ÷ baseline: what the context carried from step to step cost. */
  readonly stepCallCost: number;
  /**
   * The baseline's summary calls as a share of its input cost: what the best-cached summary request
   * can save at most, so `1 − this` bounds the ratio a policy reaches without carrying less context.
   */
  readonly baselineSummaryShare: number;
  readonly facts: number;
}

function compare(current: CostRun, baseline: CostRun): Comparison {
  return {
    behaviour: current.behaviour,
    setup: current.setup,
    cost: inputCost(current.all) / inputCost(baseline.all),
    costAtTenth: inputCost(current.all, HOSTED_CACHED_PER_MILLION) / inputCost(baseline.all, HOSTED_CACHED_PER_MILLION),
    stepCallCost: inputCost(stepCallTotals(current)) / inputCost(stepCallTotals(baseline)),
    baselineSummaryShare: inputCost(baseline.summary) / inputCost(baseline.all),
    facts: baseline.factsPresent.length === 0 ? Number.NaN : current.factsPresent.length / baseline.factsPresent.length,
  };
}

function sayTarget(line: TargetLine): void {
  say(`  ${line.verdict.toUpperCase().padEnd(4)}  ${line.target}: ${line.figure}`);
}

/** `5 of 7 pass`, and how many had nothing to measure. */
function tally(targets: readonly TargetLine[]): string {
  const count = (verdict: TargetLine['verdict']) => targets.filter((line) => line.verdict === verdict).length;
  const unmeasured = count('n/a');
  return `${count('pass')} of ${targets.length - unmeasured} pass${unmeasured > 0 ? ` (${unmeasured} n/a: nothing to measure)` : ''}`;
}

export async function costBench(stack: Stack, argv: readonly string[] = process.argv): Promise<BenchBody> {
  const sessionShape = shape(argv);
  const behaviours = summarizerBehaviours(argv);
  const runs: CostRun[] = [];
  const comparisons: Comparison[] = [];
  const targets: TargetLine[] = [];
  say(
    `${behaviours.length} summarizer behaviours (${behaviours.join(', ')}); per behaviour ${SETUPS.length * POLICIES.length} sessions side by side ` +
      `(${SETUPS.map((setup) => setup.name).join(', ')} × current and baseline), ${sessionShape.turns * (sessionShape.turnSteps + 1)} steps each`,
  );
  for (const behaviour of behaviours) {
    const started = performance.now();
    say(`${behaviour}:`);
    const behaviourRuns = await runBehaviour(stack, behaviour, SETUPS, POLICIES, sessionShape);
    runs.push(...behaviourRuns);
    for (const { name } of SETUPS) {
      const current = behaviourRuns.find((run) => run.setup === name && run.policy === 'current');
      const baseline = behaviourRuns.find((run) => run.setup === name && run.policy === 'baseline');
      if (!current || !baseline) throw new Error('runBehaviour returns one run per setup and policy');
      say(`${behaviour}, ${name} (all ${SETUPS.length * POLICIES.length} sessions in ${num((performance.now() - started) / 1000, 0)} s):`);
      sayRun(current);
      sayRun(baseline);
      const comparison = compare(current, baseline);
      comparisons.push(comparison);
      say(
        `  current ÷ baseline: input cost ${ratio(comparison.cost, 1)} (${ratio(comparison.costAtTenth, 1)} at a tenth; step calls alone ` +
          `${ratio(comparison.stepCallCost, 1)}), facts ${ratio(comparison.facts, 1)}`,
      );
      const judged = judge(current, baseline);
      judged.forEach(sayTarget);
      targets.push(...judged);
    }
  }
  say(`targets: ${tally(targets)}`);

  return {
    figures: {
      setups: SETUPS,
      shape: sessionShape,
      baselineCompaction: BASELINE_COMPACTION,
      prices: { inputPerMillion: SIMULATOR_PRICE.inputPerMillion, nominalCachedPerMillion: NOMINAL_CACHED_PER_MILLION, hostedCachedPerMillion: HOSTED_CACHED_PER_MILLION },
      runs: runs.map((run) => ({
        ...run,
        summaryCachedShare: cachedShare(run.summary) ?? null,
        allCachedShare: cachedShare(run.all) ?? null,
        inputCostUsd: inputCost(run.all),
        inputCostAtTenthUsd: inputCost(run.all, HOSTED_CACHED_PER_MILLION),
      })),
      ratios: comparisons,
      targets,
    },
    markdown: [
      `For each simulator summarizer behaviour, one session of ${sessionShape.turns} turns × ${sessionShape.turnSteps + 1} steps`,
      `(${sessionShape.turns * (sessionShape.turnSteps + 1)} model calls) in each setup: ${SETUPS.map(setupText).join('; ')};`,
      `under agentd's current compaction settings (the defaults) and under the baseline`,
      `\`compaction: ${JSON.stringify(BASELINE_COMPACTION)}\`; a behaviour's ${SETUPS.length * POLICIES.length} sessions run side by side on one worker, each`,
      'against a strict simulator of its window. `32K busy` is the regime #25 measured on an outside endpoint (the previous',
      'policy made 24 summaries and 22 prunes in 120 steps with a well-behaved summarizer, 72 compactions with a long one).',
      'The facts bench\'s facts are planted the same way; "facts" counts those in the last step request. Prompt and cached',
      'tokens are `usage.prompt_tokens` and `usage.prompt_tokens_details.cached_tokens` of every answer, read by a proxy',
      'between the worker and the simulator; a summary call is one whose last message is the summarize instruction.',
      `Input cost: uncached prompt tokens at $${num(SIMULATOR_PRICE.inputPerMillion, 2)} per million plus cached ones at $${num(NOMINAL_CACHED_PER_MILLION, 2)} (the`,
      `simulator's nominal price), and at $${num(HOSTED_CACHED_PER_MILLION, 2)} (a tenth, as hosted providers charge). Compactions are`,
      'summary / prune / truncate from the final state; "under trigger" compares each successful compaction\'s `tokensAfter`',
      'with the trigger (notices read by polling the state query, which keeps the newest 20).',
      '',
      ...SETUPS.flatMap(({ name }) => [
        `### ${name}`,
        '',
        ...table(
          ['summarizer', 'policy', 'ended', 'compactions s/p/t', 'facts at the end', 'summary calls cached', 'all calls cached', 'prompt tokens', 'input cost', 'at a tenth', 'breaker', 'under trigger after'],
          runs.filter((run) => run.setup === name).map(runRow),
        ),
        '',
      ]),
      '### Current ÷ baseline',
      '',
      ...table(
        ['summarizer', 'setup', 'input cost', 'at a tenth', 'step calls alone', "summary calls' share of the baseline's cost", 'facts'],
        comparisons.map((c) => [
          `\`${c.behaviour}\``,
          c.setup,
          `**${ratio(c.cost, 1)}**`,
          ratio(c.costAtTenth, 1),
          ratio(c.stepCallCost, 1),
          pct(c.baselineSummaryShare),
          ratio(c.facts, 1),
        ]),
      ),
      '',
      'A summary request that repeats the previous one can save at most what the baseline paid for its summary calls; the',
      'rest of the ratio is set by the context each step carries (the trigger and where a compaction lands), which the',
      '"step calls alone" column compares.',
      '',
      `### Targets (#25): ${tally(targets)}`,
      '',
      ...table(
        ['target', 'summarizer', 'setup', 'measured', ''],
        targets.map((line) => [line.target, `\`${line.behaviour}\``, line.setup, line.figure, line.verdict === 'fail' ? '**FAIL**' : line.verdict]),
      ),
      '',
      'Targets are judged on the current policy\'s sessions; n/a marks a target the session gave nothing to measure (no',
      'compaction to check, no summary call, a compaction whose notice was not seen), and is counted apart.',
      'The summarizers are scripted and the prompt cache is the simulator\'s model of one: the figures compare two policies',
      'against the same model, not against a hosted one.',
    ],
  };
}
