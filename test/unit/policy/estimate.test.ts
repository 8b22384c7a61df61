/** The usage-anchored estimate and the calibration ratio. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CALIBRATION_RANGE, calibrate, estimateContext, rawContextTokens, sanitizeCalibration } from '../../../src/policy/estimate';
import { LedgerBuilder } from './builders';

// seqs: 0 system(500), 1 task(200), 2 assistant(60) + 3 tool(1000), 4 assistant(60) + 5 tool(2000)
const ledger = LedgerBuilder.session(500, 200).step([1000]).step([2000]).build();
const OVERHEAD = 4;

describe('estimateContext', () => {
  test('without an anchor: ledger sum + per-message overhead + tool schemas', () => {
    const estimate = estimateContext(ledger, { toolSchemaTokens: 300 }, OVERHEAD);
    const expected = 500 + 200 + 60 + 1000 + 60 + 2000 + 6 * OVERHEAD + 300;
    assert.deepEqual(estimate, { tokens: expected, ledgerTokens: expected, anchored: false, excessTokens: 0, calibration: 1 });
    assert.equal(rawContextTokens(ledger, OVERHEAD, 300), expected);
  });

  test('the calibration ratio scales our count, rounded up', () => {
    const estimate = estimateContext(ledger, { toolSchemaTokens: 300, calibration: 1.1 }, OVERHEAD);
    assert.equal(estimate.tokens, Math.ceil(4144 * 1.1));
  });

  test('anchored: server usage of the last call plus our counts of what came after', () => {
    // The call that produced seq 4 measured 2500 prompt + 60 completion; seq 5 came after.
    const estimate = estimateContext(
      ledger,
      { toolSchemaTokens: 300, anchor: { promptTokens: 2500, completionTokens: 60, lastSeq: 4 } },
      OVERHEAD,
    );
    assert.equal(estimate.anchored, true);
    assert.equal(estimate.tokens, 2500 + 60 + 2000 + OVERHEAD);
    assert.equal(estimate.excessTokens, Math.max(0, estimate.tokens - estimate.ledgerTokens));
  });

  test('a server that counts more than we do leaves an excess projections carry', () => {
    const estimate = estimateContext(
      ledger,
      { toolSchemaTokens: 300, anchor: { promptTokens: 3000, completionTokens: 60, lastSeq: 4 } },
      OVERHEAD,
    );
    assert.equal(estimate.tokens, 3000 + 60 + 2004);
    assert.equal(estimate.excessTokens, 5064 - 4144);
  });

  test('a stale anchor (its seq is no longer in the ledger) falls back to the ledger sum', () => {
    const estimate = estimateContext(
      ledger,
      { toolSchemaTokens: 300, anchor: { promptTokens: 99_999, completionTokens: 1, lastSeq: 42 } },
      OVERHEAD,
    );
    assert.equal(estimate.anchored, false);
    assert.equal(estimate.tokens, 4144);
  });
});

describe('calibrate', () => {
  const cases: Array<{ name: string; previous: number; server: number; ours: number; expected: number }> = [
    { name: 'agreeing counts keep the ratio', previous: 1, server: 1000, ours: 1000, expected: 1 },
    { name: 'a server counting 20% more moves the ratio 30% of the way', previous: 1, server: 1200, ours: 1000, expected: 1.06 },
    { name: 'a wild sample is clamped before smoothing', previous: 1, server: 10_000, ours: 1000, expected: 1 + 0.3 * (CALIBRATION_RANGE.max - 1) },
    { name: 'a zero count changes nothing', previous: 1.2, server: 0, ours: 1000, expected: 1.2 },
    { name: 'our zero count changes nothing', previous: 1.2, server: 1000, ours: 0, expected: 1.2 },
    { name: 'NaN changes nothing', previous: 1.2, server: Number.NaN, ours: 1000, expected: 1.2 },
    { name: 'a broken previous ratio restarts from 1', previous: Number.POSITIVE_INFINITY, server: 1000, ours: 1000, expected: 1 },
    { name: 'the result stays in range', previous: CALIBRATION_RANGE.min, server: 1, ours: 1000, expected: CALIBRATION_RANGE.min },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = calibrate(c.previous, c.server, c.ours);
      assert.ok(Math.abs(got - c.expected) < 1e-9, `${got} ≠ ${c.expected}`);
    });
  }

  test('repeated measurements converge on the true ratio', () => {
    let ratio = 1;
    for (let i = 0; i < 40; i++) ratio = calibrate(ratio, 1150, 1000);
    assert.ok(Math.abs(ratio - 1.15) < 1e-3, `${ratio}`);
  });

  test('sanitizeCalibration', () => {
    assert.equal(sanitizeCalibration(undefined), 1);
    assert.equal(sanitizeCalibration(-3), 1);
    assert.equal(sanitizeCalibration(5), CALIBRATION_RANGE.max);
    assert.equal(sanitizeCalibration(1.3), 1.3);
  });
});
