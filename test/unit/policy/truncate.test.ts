/** Emergency truncation: oldest whole steps first, never pinned, never the newest step, a summary last. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { estimateContext } from '../../../src/policy/estimate';
import type { LedgerEntry } from '../../../src/policy/ledger';
import { fromSeqRuns } from '../../../src/policy/seqRuns';
import { selectTruncation } from '../../../src/policy/truncate';
import { LedgerBuilder, orphanProblem } from './builders';

function plan(ledger: LedgerEntry[], goal: number, records?: { keep: boolean; memoryReplaced: boolean }) {
  const estimate = estimateContext(ledger, { toolSchemaTokens: 0 }, 0);
  return selectTruncation(ledger, goal, estimate, 0, 0, records);
}

// 0 system(500) 1 task(200); five steps of assistant 60 + tool 1000: seqs 2–11; total 6000.
const fiveSteps = (): LedgerEntry[] => LedgerBuilder.session().steps(5, [1000]).build();

describe('selectTruncation', () => {
  test('drops the oldest whole steps until the estimate is under the goal', () => {
    const result = plan(fiveSteps(), 4000);
    assert.deepEqual(fromSeqRuns(result.drop), [2, 3, 4, 5]);
    assert.deepEqual(fromSeqRuns(result.droppedOriginals), [2, 3, 4, 5]);
    assert.equal(result.expectedAfter, 6000 - 2 * 1060);
    assert.equal(result.fits, true);
  });

  test('nothing to drop when already under the goal', () => {
    const result = plan(fiveSteps(), 6000);
    assert.deepEqual(result.drop, []);
    assert.equal(result.fits, true);
  });

  test('never pinned, never the newest step: an impossible goal keeps both and says it does not fit', () => {
    const ledger = fiveSteps();
    const result = plan(ledger, 0);
    assert.deepEqual(fromSeqRuns(result.drop), [2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(result.fits, false);
    assert.equal(result.expectedAfter, 700 + 1060);
    const kept = ledger.filter((entry) => !fromSeqRuns(result.drop).includes(entry.seq));
    assert.equal(orphanProblem(kept), undefined);
  });

  test('a summary goes after the raw steps, and its covered originals are listed', () => {
    const ledger = fiveSteps();
    ledger.splice(2, 0, { seq: 40, role: 'user', tokens: 300, chars: 1200, turn: 1, step: 0, kind: 'summary', covers: [[20, 29]] });
    const some = plan(ledger, 5000);
    assert.deepEqual(fromSeqRuns(some.drop), [2, 3, 4, 5]);
    const all = plan(ledger, 0);
    assert.deepEqual(fromSeqRuns(all.drop), [40, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(fromSeqRuns(all.droppedOriginals), [2, 3, 4, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
  });

  test('a dropped view lists the original it replaced', () => {
    const ledger = fiveSteps();
    ledger[3] = { ...ledger[3]!, seq: 50, kind: 'view', replaces: 3 };
    assert.deepEqual(fromSeqRuns(plan(ledger, 5000).droppedOriginals), [2, 3]);
  });

  test('truncation drops a summary or memory entry only under the old rule: with records kept, never (issue #25)', () => {
    const ledger = fiveSteps();
    ledger.splice(2, 0, { seq: 40, role: 'user', tokens: 300, chars: 1200, turn: 1, step: 0, kind: 'summary', covers: [[20, 29]] });
    ledger.splice(2, 0, { seq: 41, role: 'user', tokens: 200, chars: 800, turn: 1, step: 0, kind: 'memory' });
    assert.deepEqual(fromSeqRuns(plan(ledger, 0).drop), [41, 40, 2, 3, 4, 5, 6, 7, 8, 9], 'the old rule, kept for replay');
    const kept = plan(ledger, 0, { keep: true, memoryReplaced: false });
    assert.deepEqual(fromSeqRuns(kept.drop), [2, 3, 4, 5, 6, 7, 8, 9], 'only steps, oldest first');
    assert.equal(kept.fits, false);
    assert.equal(kept.expectedAfter, 700 + 500 + 1060);
  });

  test('a memory the truncation replaces is not counted twice: it drops no more steps than the goal needs', () => {
    const ledger = fiveSteps();
    ledger.splice(2, 0, { seq: 41, role: 'user', tokens: 1000, chars: 4000, turn: 1, step: 0, kind: 'memory' });
    // 7000 in all; a goal of 4940 needs one step dropped once the old memory's 1000 are not counted, two otherwise.
    assert.deepEqual(fromSeqRuns(plan(ledger, 4940, { keep: true, memoryReplaced: true }).drop), [2, 3]);
    assert.deepEqual(fromSeqRuns(plan(ledger, 4940, { keep: true, memoryReplaced: false }).drop), [2, 3, 4, 5]);
  });
});
