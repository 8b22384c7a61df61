/**
 * The cost benchmark's arithmetic and the issue's targets (#25): input cost weighted by the cached
 * price, cached shares, and each target judged from the runs as a line a reader can check. Pure.
 */
import { SIMULATOR_PRICE } from '../../src/model/prices';
import { SummarizerBehaviour } from '../../src/simulator/options';
import type { CostRun, TokenTotals } from './costRun';
import { FactId } from './plantedFacts';
import { num } from './result';

/** The simulator's nominal cached price (a quarter of its input price). */
export const NOMINAL_CACHED_PER_MILLION = SIMULATOR_PRICE.cachedInputPerMillion ?? SIMULATOR_PRICE.inputPerMillion;

/** USD of a run's prompt tokens: uncached at the input price, cached at `cachedPerMillion`. */
export function inputCost(totals: TokenTotals, cachedPerMillion: number = NOMINAL_CACHED_PER_MILLION): number {
  const uncached = totals.promptTokens - totals.cachedTokens;
  return (uncached * SIMULATOR_PRICE.inputPerMillion + totals.cachedTokens * cachedPerMillion) / 1e6;
}

/** The session's step calls alone: every call but the summary calls. */
export function stepCallTotals(run: CostRun): TokenTotals {
  return {
    calls: run.all.calls - run.summary.calls,
    promptTokens: run.all.promptTokens - run.summary.promptTokens,
    cachedTokens: run.all.cachedTokens - run.summary.cachedTokens,
  };
}

/** Hosted providers charge about a tenth of the input price for cached tokens. */
export const HOSTED_CACHED_PER_MILLION = SIMULATOR_PRICE.inputPerMillion / 10;

/** Cached share of the prompt tokens; undefined when there were none. */
export function cachedShare(totals: TokenTotals): number | undefined {
  return totals.promptTokens === 0 ? undefined : totals.cachedTokens / totals.promptTokens;
}

export function factShare(run: CostRun): number {
  return run.factsPresent.length / run.factsTotal;
}

export function compactions(run: CostRun): number {
  return run.byStrategy.summary + run.byStrategy.prune + run.byStrategy.truncate;
}

/** The session ran to its last planned step and completed (not failed, not cut short). */
export function finished(run: CostRun): boolean {
  return run.status === 'completed' && run.failure === null && run.steps >= run.plannedSteps;
}

/** `n/a`: the run gave the target nothing to measure (no compaction to check, no summary call), so it neither passes nor fails. */
export type Verdict = 'pass' | 'fail' | 'n/a';

export interface TargetLine {
  readonly target: string;
  readonly behaviour: SummarizerBehaviour;
  /** The WindowSetup's name. */
  readonly setup: string;
  /** The measured figure in words. */
  readonly figure: string;
  readonly verdict: Verdict;
}

export const pct = (value: number | undefined): string => (value === undefined ? 'n/a' : `${num(value * 100, 1)}%`);

const verdictOf = (pass: boolean): Verdict => (pass ? 'pass' : 'fail');

/** Successful compactions the state query never showed (it keeps only the newest notices). */
function unseenCompactions(run: CostRun): number {
  return compactions(run) - run.compactionsChecked;
}

/** `under/checked`, and how many compactions went unchecked. */
export function underTriggerFigure(run: CostRun): string {
  const unseen = unseenCompactions(run);
  return `${run.compactionsChecked - run.overTriggerAfter}/${run.compactionsChecked}${unseen > 0 ? ` (${unseen} of ${compactions(run)} not seen)` : ''}`;
}

/** Behaviours whose targets are only that the session survives them. */
const HOSTILE: ReadonlySet<SummarizerBehaviour> = new Set([
  SummarizerBehaviour.refusal,
  SummarizerBehaviour.empty,
  SummarizerBehaviour.long,
  SummarizerBehaviour.fail,
]);

/** Facts at the end of the total, with the missing ones named: lost by compaction, or never stated at all. */
export function factsFigure(run: CostRun): string {
  const lost = run.factsMissing.filter((id) => !run.factsNeverStated.includes(id));
  const missing = [
    ...(lost.length > 0 ? [`lost: ${lost.join(', ')}`] : []),
    ...(run.factsNeverStated.length > 0 ? [`never stated: ${run.factsNeverStated.join(', ')}`] : []),
  ];
  return `${run.factsPresent.length}/${run.factsTotal}${missing.length > 0 ? ` (${missing.join('; ')})` : ''}`;
}

/** Every target that applies to a configuration (current and baseline runs of one behaviour and setup). */
export function judge(current: CostRun, baseline: CostRun): TargetLine[] {
  const lines: TargetLine[] = [];
  const line = (target: string, figure: string, verdict: Verdict) => lines.push({ target, behaviour: current.behaviour, setup: current.setup, figure, verdict });
  const facts = factsFigure(current);
  if (current.behaviour === SummarizerBehaviour.sectioned) {
    const summary = cachedShare(current.summary);
    line('summary calls ≥ 90% cached', `${pct(summary)} of ${current.summary.calls} calls`, summary === undefined ? 'n/a' : verdictOf(summary >= 0.9));
    const floor = current.window >= 131_072 ? 0.9 : 0.8;
    const all = cachedShare(current.all);
    line(`all calls ≥ ${floor * 100}% cached`, pct(all), all === undefined ? 'n/a' : verdictOf(all >= floor));
  }
  const costRatio = inputCost(current.all) / inputCost(baseline.all);
  line(
    'cost-weighted input ≤ 0.7× baseline, facts ≥ baseline',
    `${costRatio.toFixed(2)}×; facts ${current.factsPresent.length} vs ${baseline.factsPresent.length}`,
    verdictOf(costRatio <= 0.7 && current.factsPresent.length >= baseline.factsPresent.length),
  );
  if (current.behaviour === SummarizerBehaviour.verbose) {
    const count = compactions(current);
    // Without a compaction the verbose summarizer was never asked: the rate says nothing about it.
    line(
      '≤ 1 compaction per 4 steps',
      count === 0 ? `no compaction in ${current.steps} steps` : `${count} in ${current.steps} steps (1 per ${num(current.steps / count, 1)})`,
      count === 0 ? 'n/a' : verdictOf(count * 4 <= current.steps),
    );
    line('every fact at the end', facts, verdictOf(current.factsMissing.length === 0));
  }
  if (current.behaviour === SummarizerBehaviour.halfFacts) {
    line('≥ 80% of facts at the end', facts, verdictOf(factShare(current) >= 0.8));
    const needed = [FactId.constraint, FactId.failingTestFromOutput];
    const lost = needed.filter((id) => !current.factsPresent.includes(id));
    line('constraint and failing-command facts at the end', lost.length === 0 ? 'both present' : `missing: ${lost.join(', ')}`, verdictOf(lost.length === 0));
  }
  if (HOSTILE.has(current.behaviour)) {
    line('session finishes', `${current.status}${current.outcome ? ` (${current.outcome})` : ''}, step ${current.steps} of ${current.plannedSteps}`, verdictOf(finished(current)));
    // One compaction over the trigger fails it; "each" passes only when there was one and every one was seen.
    const unseen = unseenCompactions(current);
    const nothingChecked = current.compactionsChecked === 0 && unseen === 0;
    line(
      'under the trigger after each compaction',
      nothingChecked ? 'no compaction to check' : `${underTriggerFigure(current)} (largest ${current.largestAfter} vs trigger ${current.trigger})`,
      current.overTriggerAfter > 0 ? 'fail' : current.compactionsChecked === 0 || unseen > 0 ? 'n/a' : 'pass',
    );
    line('≥ 60% of facts at the end', facts, verdictOf(factShare(current) >= 0.6));
  }
  return lines;
}
