/** The summary instruction's range line (src/model/summaryFormat.ts): written, read back, and found in a request. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseSummaryRange, rangeWithin, summaryRangeLine, SUMMARIZE_INSTRUCTION_HEAD } from '../../src/model/summaryFormat';

describe('summaryRangeLine and parseSummaryRange', () => {
  test('the line names the range and what follows it', () => {
    assert.equal(
      summaryRangeLine({ first: 3, last: 10, total: 14 }),
      'Summarize messages 3 to 10 of the 14 messages above (message 1 is the system prompt); ' +
        'the 4 after them stay in the context word for word after your summary, so do not repeat them.',
    );
    assert.ok(summaryRangeLine({ first: 3, last: 14, total: 14 }).endsWith('none follow them.'));
  });

  test('round trip, also inside a longer instruction', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 5_000 }), (first, length, after) => {
        const range = { first, last: first + length, total: first + length + after };
        assert.deepEqual(parseSummaryRange(summaryRangeLine(range)), range);
        const instruction = `${SUMMARIZE_INSTRUCTION_HEAD}\n${summaryRangeLine(range)}\nUse the sections below.`;
        assert.deepEqual(parseSummaryRange(instruction), range);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  test('no range, or an impossible one, reads as undefined', () => {
    assert.equal(parseSummaryRange(`${SUMMARIZE_INSTRUCTION_HEAD}\nSummarize everything above.`), undefined);
    assert.equal(parseSummaryRange('Summarize messages 0 to 4 of the 9 messages above'), undefined);
    assert.equal(parseSummaryRange('Summarize messages 5 to 4 of the 9 messages above'), undefined);
    assert.equal(parseSummaryRange('Summarize messages 2 to 10 of the 9 messages above'), undefined);
  });
});

describe('rangeWithin', () => {
  // A compacted request: system, task, summary 26, then steps.
  const request = [0, 1, 26, 24, 25, 30, 31];

  test('an unbroken run of the request: its 1-based place', () => {
    assert.deepEqual(rangeWithin(request, [26, 24, 25]), { first: 3, last: 5, total: 7 });
    assert.deepEqual(rangeWithin(request, [0]), { first: 1, last: 1, total: 7 });
    assert.deepEqual(rangeWithin(request, [30, 31]), { first: 6, last: 7, total: 7 });
  });

  test('a broken run, one out of order, one past the end, a missing seq or nothing: undefined', () => {
    assert.equal(rangeWithin(request, [26, 25]), undefined);
    assert.equal(rangeWithin(request, [24, 26]), undefined);
    assert.equal(rangeWithin(request, [31, 32]), undefined);
    assert.equal(rangeWithin(request, [99]), undefined);
    assert.equal(rangeWithin(request, [24, 99]), undefined);
    assert.equal(rangeWithin(request, []), undefined);
  });

  test('what rangeWithin finds, summaryRangeLine writes and parseSummaryRange reads back', () => {
    const range = rangeWithin(request, [26, 24, 25])!;
    assert.deepEqual(parseSummaryRange(summaryRangeLine(range)), range);
  });
});
