/**
 * The cost benchmark's arithmetic and the issue's targets (#25): input cost weighted by the cached
 * price, cached shares, and each target judged from the runs as a line a reader can check. Pure.
 */
import { SIMULATOR_PRICE } from '../../src/model/prices';
import type { CostRun, TokenTotals } from './costRun';
import { FactId } from './plantedFacts';

/** The simulator's nominal cached price (a quarter of its input price). */
export const NOMINAL_CACHED_PER_MILLION = SIMULATOR_PRICE.cachedInputPerMillion ?? SIMULATOR_PRICE.inputPerMillion;

/** USD of a run's prompt tokens: uncached at the input price, cached at `cachedPerMillion`. */
export function inputCost(totals: TokenTotals, cachedPerMillion: number = NOMINAL_CACHED_PER_MILLION): number {
  const uncached = totals.promptTokens - totals.cachedTokens;
  return (uncached * SIMULATOR_PRICE.inputPerMillion + totals.cachedTokens * cachedPerMillion) / 1e6;
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

export interface TargetLine {
  readonly target: string;
  readonly behaviour: string;
  readonly window: number;
  /** The measured figure in words. */
  readonly figure: string;
  readonly pass: boolean;
}

const pct = (value: number | undefined): string => (value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`);

/** Behaviours whose targets are only that the session survives them. */
const HOSTILE = ['refusal', 'empty', 'long', 'fail'];

/** Every target that applies to a configuration (current and baseline runs of one behaviour and window). */
export function judge(current: CostRun, baseline: CostRun | undefined): TargetLine[] {
  const lines: TargetLine[] = [];
  // A plain string: behaviours another branch adds (verbose, halfFacts, empty) are judged once they exist.
  const behaviour: string = current.behaviour;
  const line = (target: string, figure: string, pass: boolean) => lines.push({ target, behaviour: current.behaviour, window: current.window, figure, pass });
  if (behaviour === 'sectioned') {
    const summary = cachedShare(current.summary);
    line('summary calls ≥ 90% cached', `${pct(summary)} of ${current.summary.calls} calls`, summary !== undefined && summary >= 0.9);
    const floor = current.window >= 131_072 ? 0.9 : 0.8;
    const all = cachedShare(current.all);
    line(`all calls ≥ ${floor * 100}% cached`, pct(all), all !== undefined && all >= floor);
  }
  if (baseline) {
    const costRatio = inputCost(current.all) / inputCost(baseline.all);
    const factsEqualOrBetter = current.factsPresent.length >= baseline.factsPresent.length;
    line(
      'cost-weighted input ≤ 0.7× baseline, facts ≥ baseline',
      `${costRatio.toFixed(2)}×; facts ${current.factsPresent.length} vs ${baseline.factsPresent.length}`,
      costRatio <= 0.7 && factsEqualOrBetter,
    );
  }
  if (behaviour === 'verbose') {
    const perStep = compactions(current) / Math.max(1, current.steps);
    line('≤ 1 compaction per 4 steps', `${compactions(current)} in ${current.steps} steps (1 per ${(1 / Math.max(perStep, 1e-9)).toFixed(1)})`, perStep <= 0.25);
    line('every fact at the end', `${current.factsPresent.length}/${current.factsTotal}`, current.factsMissing.length === 0);
  }
  if (behaviour === 'halfFacts') {
    line('≥ 80% of facts at the end', `${current.factsPresent.length}/${current.factsTotal}`, factShare(current) >= 0.8);
    const needed = [FactId.constraint, FactId.failingTestFromOutput];
    const lost = needed.filter((id) => !current.factsPresent.includes(id));
    line('constraint and failing-command facts at the end', lost.length === 0 ? 'both present' : `missing: ${lost.join(', ')}`, lost.length === 0);
  }
  if (HOSTILE.includes(behaviour)) {
    line('session finishes', `${current.status}${current.outcome ? ` (${current.outcome})` : ''}, step ${current.steps} of ${current.plannedSteps}`, finished(current));
    line(
      'under the trigger after each compaction',
      `${current.compactionsChecked - current.overTriggerAfter}/${current.compactionsChecked} (largest ${current.largestAfter} vs trigger ${current.trigger})`,
      current.overTriggerAfter === 0,
    );
    line('≥ 60% of facts at the end', `${current.factsPresent.length}/${current.factsTotal}`, factShare(current) >= 0.6);
  }
  return lines;
}
