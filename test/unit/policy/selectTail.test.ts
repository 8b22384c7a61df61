/** Tail selection: whole turns within the cap, top-up, newest steps of an oversized turn, cut of one oversized step. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LedgerEntry } from '../../../src/policy/ledger';
import { selectTail, TailShape } from '../../../src/policy/selectTail';
import { MIN_VIEW_CHARS, VIEW_MARKER_TOKENS } from '../../../src/policy/viewSize';
import { LedgerBuilder, orphanProblem } from './builders';

// No per-message overhead here, so every weight below is a plain sum of the builder's tokens.
const SETTINGS = { tailTurns: 3, perMessageOverheadTokens: 0, pruneHeadChars: 4096, pruneTailChars: 1024 };

/** Turn 1: two steps (60 + 100 each); turns 2–4: a user message (50) and one step (160). */
function fourTurns(): LedgerEntry[] {
  return LedgerBuilder.session()
    .steps(2, [100]) // seqs 2–5
    .user() // 6
    .step([100]) // 7, 8
    .user() // 9
    .step([100]) // 10, 11
    .user() // 12
    .step([100]) // 13, 14
    .build();
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('selectTail', () => {
  const cases: Array<{
    name: string;
    ledger: () => LedgerEntry[];
    cap: number;
    seqs: number[];
    shape: TailShape;
    wholeTurns?: number;
    topUpSteps?: number;
    weight?: number;
    fits?: boolean;
  }> = [
    {
      name: 'last 3 turns whole, topped up with the whole turn before when it fits',
      ledger: fourTurns,
      cap: 10_000,
      seqs: range(2, 14),
      shape: TailShape.turns,
      wholeTurns: 3,
      topUpSteps: 2,
      weight: 950,
    },
    {
      name: 'last 3 turns whole; no top-up when the next step does not fit',
      ledger: fourTurns,
      cap: 700,
      seqs: range(6, 14),
      shape: TailShape.turns,
      wholeTurns: 3,
      topUpSteps: 0,
      weight: 630,
    },
    {
      name: 'drops the oldest turn until it fits, then tops up with the newest step of that turn',
      ledger: fourTurns,
      cap: 600,
      seqs: range(7, 14),
      shape: TailShape.turns,
      wholeTurns: 2,
      topUpSteps: 1,
      weight: 580,
    },
    {
      name: 'one turn over the cap keeps its newest whole steps that fit',
      ledger: () => LedgerBuilder.session().steps(10, [100]).build(),
      cap: 500,
      seqs: range(16, 21),
      shape: TailShape.steps,
      weight: 480,
    },
    {
      name: 'never fewer than one whole step: a step over the cap gets its tool result cut to a small view',
      ledger: () => LedgerBuilder.session().steps(3, [1000]).build(),
      cap: 500,
      seqs: [6, 7],
      shape: TailShape.cut,
      // 4000 chars is under the configured 5120-char view, so only the 512-char view shrinks it.
      weight: 60 + Math.ceil((1000 * MIN_VIEW_CHARS) / 4000) + VIEW_MARKER_TOKENS,
      fits: true,
    },
    {
      name: 'a step whose assistant message alone is over the cap and calls no tool (nothing to cut) is kept whole, flagged as not fitting',
      ledger: () => LedgerBuilder.session().step([100]).step([], 5000).build(),
      cap: 1000,
      seqs: [4],
      shape: TailShape.cut,
      weight: 5000,
      fits: false,
    },
    {
      name: 'pinned entries are never part of the tail',
      ledger: () => LedgerBuilder.session().step([100]).build(),
      cap: 100_000,
      seqs: [2, 3],
      shape: TailShape.turns,
      wholeTurns: 1,
    },
    {
      name: 'only pinned entries: an empty tail',
      ledger: () => LedgerBuilder.session().build(),
      cap: 100_000,
      seqs: [],
      shape: TailShape.empty,
      weight: 0,
    },
    {
      name: 'a zero cap still keeps one whole step',
      ledger: () => LedgerBuilder.session().steps(2, [{ tokens: 2000, chars: 8000 }]).build(),
      cap: 0,
      seqs: [4, 5],
      shape: TailShape.cut,
      fits: false,
    },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const ledger = c.ledger();
      const tail = selectTail(ledger, c.cap, SETTINGS);
      assert.deepEqual(tail.seqs, c.seqs);
      assert.equal(tail.shape, c.shape);
      if (c.wholeTurns !== undefined) assert.equal(tail.wholeTurns, c.wholeTurns);
      if (c.topUpSteps !== undefined) assert.equal(tail.topUpSteps, c.topUpSteps);
      if (c.weight !== undefined) assert.equal(tail.weight, c.weight);
      assert.equal(tail.fits, c.fits ?? true);
      if (tail.fits) assert.ok(tail.weight <= c.cap);
      // The tail starts on a step boundary: kept alone it has no orphan.
      const kept = ledger.filter((entry) => tail.seqs.includes(entry.seq));
      assert.equal(orphanProblem(kept), undefined);
    });
  }

  test('cuts the largest tool results first, only as many as needed', () => {
    const ledger = LedgerBuilder.session()
      .step([100])
      .step([
        { tokens: 20_000, chars: 80_000 }, // seq 5
        { tokens: 3_000, chars: 12_000 }, // seq 6
        { tokens: 200, chars: 800 }, // seq 7
      ])
      .build();
    const tail = selectTail(ledger, 3000, SETTINGS);
    assert.equal(tail.shape, TailShape.cut);
    assert.deepEqual(tail.seqs, [4, 5, 6, 7]);
    // Each cut keeps 4096 + 1024 chars: tokens × 5120 / chars, plus the marker allowance.
    assert.deepEqual(tail.cuts, [
      { seq: 5, headChars: 4096, tailChars: 1024, tokensBefore: 20_000, expectedTokens: 1280 + VIEW_MARKER_TOKENS },
      { seq: 6, headChars: 4096, tailChars: 1024, tokensBefore: 3_000, expectedTokens: 1280 + VIEW_MARKER_TOKENS },
    ]);
    assert.equal(tail.weight, 60 + 2 * (1280 + VIEW_MARKER_TOKENS) + 200);
    assert.ok(tail.fits);
  });

  test('regression: a kept step whose write_file arguments weigh 22K tokens gets a view of them, so the tail fits', () => {
    const ledger = LedgerBuilder.session().step([100]).step([{ tokens: 40, chars: 160 }], 22_000).build();
    ledger[4] = { ...ledger[4]!, chars: 88_000 }; // the assistant message: its arguments are the 88 KB file body
    const tail = selectTail(ledger, 3000, SETTINGS);
    assert.equal(tail.shape, TailShape.cut);
    assert.deepEqual(tail.seqs, [4, 5]);
    assert.deepEqual(tail.cuts, [{ seq: 4, headChars: 4096, tailChars: 1024, tokensBefore: 22_000, expectedTokens: 1280 + VIEW_MARKER_TOKENS }]);
    assert.ok(tail.fits, `weight ${tail.weight}`);
    // Histories from before tool-call views replay with the old choice: the step stays over the cap.
    const old = selectTail(ledger, 3000, SETTINGS, { cutToolCalls: false });
    assert.deepEqual(old.cuts, []);
    assert.equal(old.fits, false);
  });

  test('a summary entry is never in the tail, and the tail never reaches back past it', () => {
    const ledger = LedgerBuilder.session().steps(2, [100]).build();
    const summary: LedgerEntry = { seq: 99, role: 'user', tokens: 300, chars: 1200, turn: 1, step: 0, kind: 'summary', covers: [[2, 3]] };
    ledger.splice(2, 2, summary); // [system, task, summary(99), assistant 4, tool 5]
    const tail = selectTail(ledger, 100_000, SETTINGS);
    assert.deepEqual(tail.seqs, [4, 5]);
  });

  test('tailTurns bounds the whole turns kept', () => {
    const tail = selectTail(fourTurns(), 100_000, { ...SETTINGS, tailTurns: 1 });
    assert.equal(tail.wholeTurns, 1);
    // The turn before is then added step by step as top-up.
    assert.equal(tail.topUpSteps, 2);
    assert.deepEqual(tail.seqs, range(9, 14));
  });
});
