/** decide, applyCompaction, applyTruncation and verifyCompaction on the DESIGN examples (32K and 128K windows). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accounting } from '../../../src/policy/accounting';
import { CLOSED_BREAKER, type BreakerState } from '../../../src/policy/breaker';
import { applyCompaction, applyTruncation, withSessionMemory, type CompactionResults } from '../../../src/policy/applyCompaction';
import { decide, decideTruncation } from '../../../src/policy/decide';
import type { CompactDecision, CompactionRequest, DecideInput, Decision, TruncateDecision } from '../../../src/policy/decision';
import { CompactionError, CompactionErrorCode } from '../../../src/policy/errors';
import type { EstimateInput } from '../../../src/policy/estimate';
import type { LedgerEntry } from '../../../src/policy/ledger';
import { fromSeqRuns } from '../../../src/policy/seqRuns';
import { resolveCompactionSettings, type ResolvedCompactionSettings } from '../../../src/policy/settings';
import { verifyCompaction, VerifyFailure } from '../../../src/policy/verifyCompaction';
import { LedgerBuilder, orphanProblem, pinnedProblem, settingsFor } from './builders';

const OPEN: BreakerState = { consecutiveFailures: 3, open: true };
const S32 = settingsFor(32_768);
const S128 = settingsFor(131_072);

function input(
  ledger: readonly LedgerEntry[],
  settings: ResolvedCompactionSettings,
  request: CompactionRequest = 'auto',
  more: { breaker?: BreakerState; estimateInput?: Partial<EstimateInput> } = {},
): DecideInput {
  return {
    ledger,
    settings,
    request,
    breaker: more.breaker ?? CLOSED_BREAKER,
    estimateInput: { toolSchemaTokens: 300, ...more.estimateInput },
  };
}

function expectKind<K extends Decision['kind']>(decision: Decision, kind: K): Extract<Decision, { kind: K }> {
  assert.equal(decision.kind, kind, JSON.stringify(decision));
  return decision as Extract<Decision, { kind: K }>;
}

/** Views at their expected size and a summary of `summaryTokens`, with seqs from `firstSeq` on. */
function resultsFor(decision: CompactDecision, firstSeq: number, summaryTokens = 2000): CompactionResults {
  let seq = firstSeq;
  const cuts = [...decision.prune, ...decision.tailCuts];
  return {
    views: cuts.map((cut) => ({ replacedSeq: cut.seq, seq: seq++, tokens: cut.expectedTokens, chars: cut.headChars + cut.tailChars + 100 })),
    ...(decision.strategy === 'summary' ? { summary: { seq: seq++, tokens: summaryTokens, chars: summaryTokens * 4 } } : {}),
  };
}

/** 32K example: system 500 + task 200, then twelve steps each with a 1500-token (6000-char) result. */
const twelveSteps = (): LedgerEntry[] => LedgerBuilder.session().steps(12, [{ tokens: 1500, chars: 6000 }], 100).build();

describe('decide: 32K window (trigger 16384, summary ≤ 3276, tail cap ≈ 6K)', () => {
  test('under the trigger: nothing to do, and the estimate says how far', () => {
    const ledger = LedgerBuilder.session().steps(3, [1000]).build();
    const decision = expectKind(decide(input(ledger, S32)), 'none');
    assert.equal(decision.reason, 'under_trigger');
    assert.equal(decision.estimate, 500 + 200 + 3 * 1060 + 8 * 4 + 300);
  });

  test('over the trigger: summarize the older region, keep the newest whole steps that fit the tail cap', () => {
    const ledger = twelveSteps();
    const decision = expectKind(decide(input(ledger, S32)), 'compact');
    assert.equal(decision.strategy, 'summary');
    assert.equal(decision.requestedBy, 'auto');
    assert.deepEqual(decision.pinned, [0, 1]);
    // Each step weighs 100 + 1500 + 2 × 4 = 1608. Half the room, (16384 − (500 + 200 + 2 × 4 + 300) − 3276 − 1638) / 2
    // = 5231, is more than the target leaves: 8192 − 1008 − 3276 − 1638 = 2270, so one step fits.
    assert.equal(decision.tailCapTokens, 2270);
    assert.deepEqual(decision.tail, [24, 25]);
    assert.deepEqual(decision.summarize, [[2, 23]]);
    assert.deepEqual(decision.covers, [[2, 23]]);
    assert.deepEqual(decision.prune, [], '6000-char results are under pruneMinChars');
    assert.equal(decision.estimateBefore, 20_304);
    // pinned 708 + tool schemas + 1 step + summary and memory framing + summary and memory budgets.
    assert.equal(decision.expectedAfter, 708 + 300 + 1608 + 8 + 3276 + 1638);
    assert.equal(decision.memoryBudgetTokens, 1638);
    assert.deepEqual(decision.replacedMemory, []);
    assert.ok(decision.expectedAfter < decision.target && decision.target === 8_192);
    assert.equal(decision.shortfall, undefined);
  });

  test('earlier rules (target 0.75): the same ledger keeps three steps under a tail cap of 5231', () => {
    const earlier = resolveCompactionSettings(32_768, {}, { landWithRoom: false });
    const decision = expectKind(decide(input(twelveSteps(), earlier)), 'compact');
    assert.equal(decision.strategy, 'summary');
    assert.equal(decision.tailCapTokens, 5231);
    assert.deepEqual(decision.tail, [20, 21, 22, 23, 24, 25]);
    assert.deepEqual(decision.summarize, [[2, 19]]);
    assert.equal(decision.expectedAfter, 708 + 300 + 3 * 1608 + 8 + 3276 + 1638);
    assert.ok(decision.expectedAfter < decision.target && decision.target === 12_288);
    assert.equal(decision.shortfall, undefined);
  });

  test('applyCompaction builds [system, task, summary, …tail] and verifyCompaction accepts it', () => {
    const ledger = twelveSteps();
    const decision = expectKind(decide(input(ledger, S32)), 'compact');
    const applied = applyCompaction(ledger, decision, resultsFor(decision, 26, 2000));
    assert.deepEqual(
      applied.ledger.map((entry) => entry.seq),
      [0, 1, 26, 24, 25],
    );
    const summary = applied.ledger[2]!;
    assert.equal(summary.role, 'user', 'a summary is a user message, never an assistant reply');
    assert.equal(summary.kind, 'summary');
    assert.deepEqual(summary.covers, [[2, 23]]);
    assert.equal(applied.event.strategy, 'summary');
    assert.equal(applied.event.tokensBefore, 20_304);
    assert.equal(applied.event.tokensAfter, 708 + 300 + 1608 + 2004);
    assert.deepEqual(applied.event.coveredSeqs, [[2, 23]]);
    assert.deepEqual(applied.event.summary, { seq: 26, replacesSeqs: [[2, 23]], tokensBefore: 11 * 1600, tokensAfter: 2000 });
    assert.deepEqual(verifyCompaction(decision, applied), { ok: true });
    assert.equal(orphanProblem(applied.ledger), undefined);
    assert.equal(pinnedProblem(ledger, applied.ledger), undefined);
    assert.ok(accounting(ledger.map((entry) => entry.seq), applied.ledger, []).ok);
  });

  test('a second compaction merges the previous summary and still accounts for every seq', () => {
    const original = twelveSteps();
    const first = expectKind(decide(input(original, S32)), 'compact');
    const once = applyCompaction(original, first, resultsFor(first, 26, 2000)).ledger;
    // Compacted to 4620 tokens; eight more steps (seqs 27–42, 1608 each) push it over the trigger again.
    const grown = LedgerBuilder.from(once).steps(8, [{ tokens: 1500, chars: 6000 }], 100).build();
    const more = grown.filter((entry) => entry.seq >= 27);
    const second = expectKind(decide(input(grown, S32)), 'compact');
    assert.equal(second.strategy, 'summary');
    assert.equal(fromSeqRuns(second.summarize)[0], 26, 'the previous summary is merged');
    const twice = applyCompaction(grown, second, resultsFor(second, 100, 2500)).ledger;
    const newSummary = twice[2]!;
    assert.equal(newSummary.kind, 'summary');
    assert.ok(fromSeqRuns(newSummary.covers ?? []).includes(2), 'covers what the first summary covered');
    const originals = [...original.map((entry) => entry.seq), ...more.map((entry) => entry.seq)];
    assert.deepEqual(accounting(originals, twice, []), { ok: true, missing: [], duplicated: [], unexpected: [] });
    assert.equal(orphanProblem(twice), undefined);
  });

  test('pinned messages too large for any compaction: the decision says why it cannot get under the trigger', () => {
    const ledger = LedgerBuilder.session(14_000, 200).steps(3, [800]).build();
    const decision = expectKind(decide(input(ledger, S32)), 'compact');
    assert.ok(decision.expectedAfter >= decision.trigger);
    assert.equal(decision.shortfall?.reason, 'pinned_over_budget');
    assert.equal(decision.shortfall?.overByTokens, decision.expectedAfter - decision.trigger);
  });

  test('an anchored estimate triggers even when the ledger sum is small', () => {
    const ledger = LedgerBuilder.session().steps(6, [1000]).build();
    const anchored = input(ledger, S32, 'auto', {
      estimateInput: { anchor: { promptTokens: 16_000, completionTokens: 60, lastSeq: 12 } },
    });
    const decision = expectKind(decide(anchored), 'compact');
    assert.equal(decision.estimateBefore, 16_000 + 60 + 1004);
    // Our sum is 708 + 300 + 6 × 1068 = 7416: the server saw 9648 more, and that excess is carried.
    assert.equal(decision.projection.excessTokens, 17_064 - 7_416);
    // It leaves no room for a tail: the newest step is kept with its result cut to the smallest view
    // (60 + 4 + 176 + 4), plus pinned and schemas (1008), summary and memory framing (8) and budgets (3276 + 1638).
    assert.equal(decision.tailCapTokens, 0);
    assert.equal(decision.expectedAfter, 1008 + 244 + 8 + 3276 + 1638 + 9648);
    assert.equal(decision.shortfall, undefined);
  });
});

describe('decide: 128K window (trigger 114688, tail cap 16384)', () => {
  /** `turns` turns of ten steps, each with one result of `chars` characters at 4 chars per token. */
  const longTurns = (turns: number, chars: number): LedgerEntry[] => {
    const builder = LedgerBuilder.session().steps(10, [{ tokens: chars / 4, chars }]);
    for (let turn = 1; turn < turns; turn++) builder.user(80).steps(10, [{ tokens: chars / 4, chars }]);
    return builder.build();
  };

  test('large old results: pruning alone reclaims a quarter and gets under the trigger, so no summary call', () => {
    const ledger = longTurns(4, 12_000);
    const decision = expectKind(decide(input(ledger, S128)), 'compact');
    assert.equal(decision.strategy, 'prune');
    assert.deepEqual(decision.summarize, []);
    assert.ok(decision.prune.length > 20);
    assert.ok(decision.prune.every((cut) => cut.expectedTokens < cut.tokensBefore && cut.headChars === 4096 && cut.tailChars === 1024));
    assert.ok(decision.expectedAfter < S128.triggerTokens);
    const tail = new Set(decision.tail);
    assert.ok(decision.prune.every((cut) => !tail.has(cut.seq)), 'the tail is never pruned');

    const applied = applyCompaction(ledger, decision, resultsFor(decision, 1000));
    const views = applied.ledger.filter((entry) => entry.kind === 'view');
    assert.equal(views.length, decision.prune.length);
    const firstView = views[0]!;
    const replaced = ledger.find((entry) => entry.seq === firstView.replaces)!;
    assert.equal(firstView.answers, replaced.answers, 'a view answers the same tool call');
    assert.equal(firstView.role, 'tool');
    assert.equal(applied.event.replaced.length, decision.prune.length);
    assert.equal(applied.event.tokensAfter, decision.expectedAfter);
    assert.deepEqual(verifyCompaction(decision, applied), { ok: true });
    assert.equal(orphanProblem(applied.ledger), undefined);
    assert.ok(accounting(ledger.map((entry) => entry.seq), applied.ledger, []).ok);
  });

  test('results under pruneMinChars: summarize the older turns, keep the tail within 16384 tokens', () => {
    // Six turns of ten 2000-token steps: about 125K tokens, over the 114 688 trigger.
    const grown = longTurns(6, 8_000);
    const decision = expectKind(decide(input(grown, S128)), 'compact');
    assert.equal(decision.strategy, 'summary');
    assert.equal(decision.tailCapTokens, 16_384);
    const tailWeight = grown.filter((entry) => decision.tail.includes(entry.seq)).reduce((sum, entry) => sum + entry.tokens + 4, 0);
    assert.ok(tailWeight <= 16_384, `${tailWeight}`);
    assert.equal(decision.summaryBudgetTokens, 8192);
  });
});

describe('decide: requests, breaker and auto switch', () => {
  const overTrigger = twelveSteps; // 20 304 tokens: over the 32K trigger, under the hard limit
  const overHardLimit = (): LedgerEntry[] => LedgerBuilder.session().steps(20, [{ tokens: 1500, chars: 6000 }], 100).build();

  const cases: Array<{
    name: string;
    ledger: () => LedgerEntry[];
    request: CompactionRequest;
    breaker?: BreakerState;
    auto?: boolean;
    kind: Decision['kind'];
    detail: string;
  }> = [
    { name: 'auto, breaker open, request still fits: none', ledger: overTrigger, request: 'auto', breaker: OPEN, kind: 'none', detail: 'breaker_open' },
    { name: 'auto, breaker open, over the hard limit: truncate', ledger: overHardLimit, request: 'auto', breaker: OPEN, kind: 'truncate', detail: 'breaker_open' },
    { name: 'manual runs with the breaker open', ledger: overTrigger, request: 'manual', breaker: OPEN, kind: 'compact', detail: 'manual' },
    { name: 'manual compacts under the trigger when something is older than the tail', ledger: () => LedgerBuilder.session().steps(6, [1500], 100).build(), request: 'manual', kind: 'compact', detail: 'manual' },
    { name: 'manual with nothing older than the tail: none, with a reason', ledger: () => LedgerBuilder.session().steps(2, [100]).build(), request: 'manual', kind: 'none', detail: 'nothing_to_compact' },
    { name: 'reactive compacts whatever the estimate says', ledger: () => LedgerBuilder.session().steps(6, [1500], 100).build(), request: 'reactive', kind: 'compact', detail: 'reactive' },
    { name: 'reactive with the breaker open truncates', ledger: overTrigger, request: 'reactive', breaker: OPEN, kind: 'truncate', detail: 'breaker_open' },
    { name: 'reactive with nothing to compact truncates', ledger: () => LedgerBuilder.session().user().step([100]).user().step([100]).build(), request: 'reactive', kind: 'truncate', detail: 'cannot_compact' },
    { name: 'auto off, request still fits: none', ledger: overTrigger, request: 'auto', auto: false, kind: 'none', detail: 'auto_off' },
    { name: 'auto off, over the hard limit: truncate', ledger: overHardLimit, request: 'auto', auto: false, kind: 'truncate', detail: 'auto_off' },
    { name: 'auto off does not stop a manual compaction', ledger: overTrigger, request: 'manual', auto: false, kind: 'compact', detail: 'manual' },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const settings = c.auto === false ? settingsFor(32_768, { auto: false }) : S32;
      const decision = decide(input(c.ledger(), settings, c.request, c.breaker ? { breaker: c.breaker } : {}));
      assert.equal(decision.kind, c.kind, JSON.stringify(decision));
      const detail = decision.kind === 'none' ? decision.reason : decision.kind === 'truncate' ? decision.cause : decision.requestedBy;
      assert.equal(detail, c.detail);
    });
  }

  test('a truncation drops whole old steps down to the hard limit and lists the originals', () => {
    const ledger = overHardLimit();
    const decision = expectKind(decide(input(ledger, S32, 'auto', { breaker: OPEN })), 'truncate');
    assert.equal(decision.goal, S32.hardLimitTokens);
    assert.ok(decision.expectedAfter <= S32.hardLimitTokens);
    assert.equal(fromSeqRuns(decision.drop)[0], 2, 'oldest first');
    const applied = applyTruncation(ledger, decision);
    assert.equal(applied.event.strategy, 'truncate');
    assert.equal(applied.event.cause, 'breaker_open');
    assert.deepEqual(applied.event.truncatedSeqs, decision.droppedOriginals);
    assert.equal(applied.event.tokensAfter, decision.expectedAfter);
    assert.equal(orphanProblem(applied.ledger), undefined);
    assert.ok(accounting(ledger.map((entry) => entry.seq), applied.ledger, fromSeqRuns(applied.event.truncatedSeqs)).ok);
  });

  test('compaction switched off (enabled: false): every request, even over the hard limit, decides none', () => {
    const off = settingsFor(32_768, { enabled: false });
    for (const request of ['auto', 'manual', 'reactive'] as const) {
      const decision = decide(input(overHardLimit(), off, request, { breaker: OPEN }));
      assert.deepEqual([decision.kind, decision.kind === 'none' ? decision.reason : ''], ['none', 'disabled'], request);
    }
    for (const cause of ['repeated_overflow', 'reactive_compaction_failed', 'cannot_compact'] as const) {
      assert.equal(expectKind(decideTruncation(input(overHardLimit(), off), cause), 'none').reason, 'disabled');
    }
  });

  test('decideTruncation: a repeated overflow always drops something; otherwise only over the hard limit', () => {
    const ledger = overTrigger();
    const repeated = expectKind(decideTruncation(input(ledger, S32), 'repeated_overflow'), 'truncate');
    assert.ok(repeated.expectedAfter <= S32.targetTokens);
    // After a failed reactive compaction the server has refused this context: under the trigger too.
    const afterReactive = expectKind(decideTruncation(input(ledger, S32, 'reactive'), 'reactive_compaction_failed'), 'truncate');
    assert.deepEqual(afterReactive.drop, repeated.drop);
    assert.deepEqual(decideTruncation(input(ledger, S32), 'cannot_compact'), { kind: 'none', reason: 'within_limit', estimate: 20_304 });
    expectKind(decideTruncation(input(overHardLimit(), S32), 'cannot_compact'), 'truncate');
  });
});

describe('verifyCompaction and applyCompaction errors', () => {
  const ledger = twelveSteps();
  const decision = expectKind(decide(input(ledger, S32)), 'compact');

  test('a summary longer than what it replaces is a failure, not adopted', () => {
    const applied = applyCompaction(ledger, decision, resultsFor(decision, 26, 20_000));
    const verdict = verifyCompaction(decision, applied);
    assert.equal(verdict.ok, false);
    assert.ok(!verdict.ok && verdict.code === VerifyFailure.summaryNotShorter && !verdict.adopt);
  });

  test('a result still over the trigger is a failure, adopted when it shrank the context', () => {
    const applied = applyCompaction(ledger, decision, resultsFor(decision, 26, 2000));
    const verdict = verifyCompaction({ ...decision, trigger: applied.event.tokensAfter }, applied);
    assert.ok(!verdict.ok && verdict.code === VerifyFailure.notUnderTrigger && verdict.adopt);
  });

  test('a view no smaller than its original is a failure', () => {
    const big = LedgerBuilder.session().steps(2, [{ tokens: 20_000, chars: 80_000 }]).build();
    const cut = expectKind(decide(input(big, S32)), 'compact');
    assert.ok(cut.tailCuts.length > 0 || cut.prune.length > 0);
    const results = resultsFor(cut, 100);
    const grown = { ...results, views: results.views!.map((view) => ({ ...view, tokens: 30_000 })) };
    const verdict = verifyCompaction(cut, applyCompaction(big, cut, grown));
    assert.ok(!verdict.ok && verdict.code === VerifyFailure.viewNotShorter && !verdict.adopt);
  });

  test('results that do not match the decision are a programming error with a code', () => {
    assert.throws(
      () => applyCompaction(ledger, decision, {}),
      (error: unknown) => error instanceof CompactionError && error.code === CompactionErrorCode.resultsMismatch,
    );
  });

  test('a decision applied to a changed ledger is refused', () => {
    const changed = ledger.filter((entry) => entry.seq !== 24 && entry.seq !== 25);
    assert.throws(
      () => applyCompaction(changed, decision, resultsFor(decision, 26)),
      (error: unknown) => error instanceof CompactionError && error.code === CompactionErrorCode.staleDecision,
    );
    const truncate: TruncateDecision = { ...(decide(input(ledger, S32, 'reactive', { breaker: OPEN })) as TruncateDecision) };
    assert.throws(
      () => applyTruncation(ledger.slice(0, 3), truncate),
      (error: unknown) => error instanceof CompactionError && error.code === CompactionErrorCode.staleDecision,
    );
  });
});

describe('decisions are plain, deterministic values', () => {
  test('same input, deep-equal output; JSON round trip keeps it; the input is not mutated', () => {
    const ledger = twelveSteps();
    const frozen = JSON.stringify(ledger);
    const first = decide(input(ledger, S32));
    const second = decide(input(JSON.parse(frozen) as LedgerEntry[], S32));
    assert.deepEqual(first, second);
    assert.deepEqual(JSON.parse(JSON.stringify(first)), first);
    assert.equal(JSON.stringify(ledger), frozen);
  });
});

describe('decide: graceful degradation (breaker open, half-open, truncation to the target)', () => {
  const OPEN_UNTIL_30: BreakerState = { consecutiveFailures: 3, open: true, openedAtStep: 10, coolDownSteps: 20, retryAtStep: 30 };
  const graceful = (ledger: LedgerEntry[], step: number, request: CompactionRequest = 'auto', breaker = OPEN_UNTIL_30): DecideInput => ({
    ...input(ledger, S32, request, { breaker }),
    step,
    graceful: true,
  });
  // Over the 32K trigger (16 384) but under the hard limit; results too short to prune.
  const unprunable = (): LedgerEntry[] => LedgerBuilder.session().steps(12, [{ tokens: 1500, chars: 6000 }], 100).build();
  // The same sizes, but every result is long enough to be cut to a view.
  const prunable = (): LedgerEntry[] => LedgerBuilder.session().steps(12, [{ tokens: 1500, chars: 40_000 }], 100).build();

  test('breaker open at the trigger: model-free pruning still runs', () => {
    const decision = expectKind(decide(graceful(prunable(), 12)), 'compact');
    assert.equal(decision.strategy, 'prune');
    assert.ok(decision.expectedAfter < S32.triggerTokens, `${decision.expectedAfter}`);
  });

  test('breaker open at the trigger with nothing to prune: truncates to the target, not to the hard limit', () => {
    const decision = expectKind(decide(graceful(unprunable(), 12)), 'truncate');
    assert.equal(decision.cause, 'breaker_open');
    assert.equal(decision.goal, S32.targetTokens);
    assert.ok(decision.expectedAfter <= S32.targetTokens);
    // The old rules waited for the hard limit and then only got under it.
    assert.equal(decide(input(unprunable(), S32, 'auto', { breaker: OPEN_UNTIL_30 })).kind, 'none');
  });

  test('after the cool-down the breaker half-opens: one summary is planned again', () => {
    assert.equal(expectKind(decide(graceful(unprunable(), 29)), 'truncate').cause, 'breaker_open');
    const retry = expectKind(decide(graceful(unprunable(), 30)), 'compact');
    assert.equal(retry.strategy, 'summary');
  });

  test('a truncation that stores a session memory leaves room for it under the target; the memory goes after the pinned entries', () => {
    const ledger = unprunable();
    const decision = expectKind(decide({ ...graceful(ledger, 12), memoryAtTruncation: true }), 'truncate');
    assert.equal(decision.memoryBudgetTokens, S32.memoryBudgetTokens);
    assert.equal(decision.goal, S32.targetTokens - S32.memoryBudgetTokens - S32.perMessageOverheadTokens, 'room for the text and its framing');
    assert.ok(decision.expectedAfter <= decision.goal);
    const applied = applyTruncation(ledger, decision);
    const memory = { seq: 900, tokens: S32.memoryBudgetTokens, chars: 4 * S32.memoryBudgetTokens };
    const remembered = withSessionMemory(applied, memory, decision.projection);
    const pinnedCount = ledger.filter((entry) => entry.pinned).length;
    assert.equal(remembered.ledger[pinnedCount]?.seq, 900);
    assert.equal(remembered.ledger[pinnedCount]?.kind, 'memory');
    assert.ok(remembered.event.tokensAfter > applied.event.tokensAfter, 'the memory is counted');
    assert.ok(remembered.event.tokensAfter <= S32.targetTokens, `${remembered.event.tokensAfter} with the memory, target ${S32.targetTokens}`);
    // A second truncation's memory replaces the first: one memory in the context, and nothing vanishes.
    const again = withSessionMemory({ ...remembered, ledger: remembered.ledger }, { ...memory, seq: 901 }, decision.projection);
    assert.deepEqual(again.ledger.filter((entry) => entry.kind === 'memory').map((entry) => entry.seq), [901]);
    assert.equal(orphanProblem(again.ledger), undefined);
    assert.ok(accounting(ledger.map((entry) => entry.seq), again.ledger, fromSeqRuns(applied.event.truncatedSeqs)).ok);
    // Without the flag (older histories) the goal is the target itself.
    assert.equal(expectKind(decide(graceful(ledger, 12)), 'truncate').memoryBudgetTokens, undefined);
  });

  test('a failed compaction truncates to the target once at the trigger, and not below it', () => {
    const truncated = expectKind(decideTruncation(graceful(unprunable(), 12), 'cannot_compact'), 'truncate');
    assert.equal(truncated.goal, S32.targetTokens);
    const small = LedgerBuilder.session().steps(4, [{ tokens: 1500, chars: 6000 }], 100).build();
    assert.equal(expectKind(decideTruncation(graceful(small, 12), 'cannot_compact'), 'none').reason, 'within_limit');
  });

  test('the summary projection counts its header; pruning replaces a summary only when it reaches the target', () => {
    const closed = graceful(unprunable(), 12, 'auto', CLOSED_BREAKER);
    const before = expectKind(decide({ ...closed, graceful: false }), 'compact');
    const after = expectKind(decide(closed), 'compact');
    assert.equal(after.strategy, 'summary');
    assert.ok(after.expectedAfter > before.expectedAfter, `${after.expectedAfter} vs ${before.expectedAfter}`);
  });
});
