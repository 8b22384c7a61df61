/** The cost benchmark's targets: a target the run gave nothing to measure says n/a, never pass. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CostRun } from '../../bench/lib/costRun';
import { factsFigure, judge, stepCallTotals, type TargetLine } from '../../bench/lib/costTargets';
import type { SummarizerBehaviour } from '../../src/simulator/options';

const TOKENS = { calls: 120, promptTokens: 1_000_000, cachedTokens: 900_000 };

function run(behaviour: SummarizerBehaviour, overrides: Partial<CostRun> = {}): CostRun {
  return {
    behaviour,
    setup: '32K',
    window: 32_768,
    output: '8000-10000',
    policy: 'current',
    status: 'completed',
    outcome: null,
    failure: null,
    steps: 120,
    plannedSteps: 120,
    byStrategy: { summary: 4, prune: 0, truncate: 0 },
    failedCompactions: 0,
    noticesTotal: 4,
    trigger: 24_000,
    overTriggerAfter: 0,
    compactionsChecked: 4,
    largestAfter: 12_000,
    breaker: { open: false, consecutiveFailures: 0 },
    factsTotal: 13,
    factsPresent: Array.from({ length: 13 }, (_, index) => `fact ${index}`),
    factsMissing: [],
    factsNeverStated: [],
    all: TOKENS,
    summary: { calls: 4, promptTokens: 80_000, cachedTokens: 78_000 },
    refusedRequests: 0,
    elapsedMs: 1,
    ...overrides,
  };
}

function verdictOf(lines: readonly TargetLine[], target: string): TargetLine['verdict'] | undefined {
  return lines.find((line) => line.target === target)?.verdict;
}

const UNDER_TRIGGER = 'under the trigger after each compaction';
const RATE = '≤ 1 compaction per 4 steps';

describe('cost benchmark targets', () => {
  it('under the trigger after each compaction: pass when all were seen under it, fail on one over, n/a with none or some unseen', () => {
    const baseline = run('fail', { policy: 'baseline', all: { ...TOKENS, cachedTokens: 0 } });
    assert.equal(verdictOf(judge(run('fail'), baseline), UNDER_TRIGGER), 'pass');
    assert.equal(verdictOf(judge(run('fail', { overTriggerAfter: 1 }), baseline), UNDER_TRIGGER), 'fail');
    const none = judge(run('fail', { byStrategy: { summary: 0, prune: 0, truncate: 0 }, compactionsChecked: 0 }), baseline);
    assert.equal(verdictOf(none, UNDER_TRIGGER), 'n/a');
    assert.match(none.find((line) => line.target === UNDER_TRIGGER)?.figure ?? '', /no compaction/);
    const unseen = judge(run('fail', { compactionsChecked: 3 }), baseline);
    assert.equal(verdictOf(unseen, UNDER_TRIGGER), 'n/a');
    assert.match(unseen.find((line) => line.target === UNDER_TRIGGER)?.figure ?? '', /1 of 4 not seen/);
  });

  it('≤ 1 compaction per 4 steps: n/a without a compaction, fail above the rate', () => {
    const baseline = run('verbose', { policy: 'baseline' });
    assert.equal(verdictOf(judge(run('verbose'), baseline), RATE), 'pass');
    assert.equal(verdictOf(judge(run('verbose', { byStrategy: { summary: 0, prune: 0, truncate: 0 } }), baseline), RATE), 'n/a');
    assert.equal(verdictOf(judge(run('verbose', { byStrategy: { summary: 20, prune: 11, truncate: 0 } }), baseline), RATE), 'fail');
  });

  it('summary calls ≥ 90% cached: n/a when there was no summary call', () => {
    const baseline = run('sectioned', { policy: 'baseline' });
    const lines = judge(run('sectioned', { summary: { calls: 0, promptTokens: 0, cachedTokens: 0 } }), baseline);
    assert.equal(verdictOf(lines, 'summary calls ≥ 90% cached'), 'n/a');
    assert.equal(verdictOf(judge(run('sectioned'), baseline), 'summary calls ≥ 90% cached'), 'pass');
  });

  it('every fact at the end: a fact never stated to the model is named apart from one lost, and still fails the target', () => {
    const present = Array.from({ length: 11 }, (_, index) => `fact ${index}`);
    const current = run('verbose', { factsPresent: present, factsMissing: ['fact 11', 'fact 12'], factsNeverStated: ['fact 12'] });
    assert.equal(factsFigure(current), '11/13 (lost: fact 11; never stated: fact 12)');
    assert.equal(verdictOf(judge(current, run('verbose', { policy: 'baseline' })), 'every fact at the end'), 'fail');
    assert.equal(factsFigure(run('verbose')), '13/13');
  });

  it('step calls alone: every call but the summary calls', () => {
    assert.deepEqual(stepCallTotals(run('sectioned')), { calls: 116, promptTokens: 920_000, cachedTokens: 822_000 });
  });
});
