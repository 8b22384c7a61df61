/** Prune selection and the skip-summary rule. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LedgerEntry } from '../../../src/policy/ledger';
import { selectPrune, shouldSkipSummary } from '../../../src/policy/selectPrune';
import { DEFAULT_COMPACTION_SETTINGS } from '../../../src/policy/settings';
import { VIEW_MARKER_TOKENS } from '../../../src/policy/viewSize';
import { LedgerBuilder } from './builders';

const S = DEFAULT_COMPACTION_SETTINGS;

describe('selectPrune', () => {
  // seqs: 2 assistant, 3 tool 9000 chars, 4 tool 8192 chars (not over), 5 tool 50 000 chars;
  // 6 assistant (60 tokens, but 40 000 chars of arguments), 7 tool 100 chars
  function ledger(): LedgerEntry[] {
    const entries = LedgerBuilder.session()
      .step([
        { tokens: 2_250, chars: 9_000 },
        { tokens: 2_048, chars: 8_192 },
        { tokens: 12_500, chars: 50_000 },
      ])
      .step([{ tokens: 25, chars: 100 }])
      .build();
    entries[6] = { ...entries[6]!, chars: 40_000 };
    return entries;
  }

  test('tool results over pruneMinChars become views sized tokens × kept/chars + marker', () => {
    const selection = selectPrune(ledger(), 0, 8, S);
    assert.deepEqual(selection.cuts, [
      { seq: 3, headChars: 4096, tailChars: 1024, tokensBefore: 2_250, expectedTokens: 1280 + VIEW_MARKER_TOKENS },
      { seq: 5, headChars: 4096, tailChars: 1024, tokensBefore: 12_500, expectedTokens: 1280 + VIEW_MARKER_TOKENS },
    ]);
    assert.equal(selection.savedTokens, 2_250 + 12_500 - 2 * (1280 + VIEW_MARKER_TOKENS));
  });

  test('only the given range (the region older than the tail) is considered', () => {
    assert.deepEqual(
      selectPrune(ledger(), 0, 5, S).cuts.map((cut) => cut.seq),
      [3],
    );
  });

  test('views and pinned entries are never pruned again', () => {
    const entries = ledger();
    entries[3] = { ...entries[3]!, kind: 'view', replaces: 3, seq: 50 };
    entries[0] = { ...entries[0]!, role: 'tool', chars: 100_000 }; // absurd, but pinned wins
    assert.deepEqual(
      selectPrune(entries, 0, 8, S).cuts.map((cut) => cut.seq),
      [5],
    );
  });

  test('a custom threshold and view size', () => {
    const selection = selectPrune(ledger(), 0, 8, { pruneMinChars: 1_000, pruneHeadChars: 200, pruneTailChars: 100 });
    assert.deepEqual(
      selection.cuts.map((cut) => [cut.seq, cut.expectedTokens]),
      [
        [3, 75 + VIEW_MARKER_TOKENS],
        [4, 75 + VIEW_MARKER_TOKENS],
        [5, 75 + VIEW_MARKER_TOKENS],
      ],
    );
  });
});

describe('shouldSkipSummary', () => {
  const cases = [
    { name: 'reclaims a quarter and gets under the trigger', saved: 25_000, transcript: 100_000, after: 90_000, skip: true },
    { name: 'reclaims less than a quarter', saved: 24_999, transcript: 100_000, after: 90_000, skip: false },
    { name: 'reclaims a lot but stays at the trigger', saved: 50_000, transcript: 200_000, after: 100_000, skip: false },
    { name: 'reclaims nothing', saved: 0, transcript: 100_000, after: 50_000, skip: false },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(
        shouldSkipSummary(
          { savedTokens: c.saved, transcriptTokens: c.transcript, estimateAfterPrune: c.after, triggerTokens: 100_000 },
          S,
        ),
        c.skip,
      );
    });
  }
});
