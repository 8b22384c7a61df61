/** Settings: defaults, derived numbers for the DESIGN examples, and contradictions named by field and value. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CompactionSettingsError,
  CompactionSettingsErrorCode,
  CompactionSettingsSchema,
  DEFAULT_COMPACTION_SETTINGS,
  EARLIER_TARGET_SHARE_OF_TRIGGER,
  resolveCompactionSettings,
  TARGET_SHARE_OF_TRIGGER,
  type SettingsRules,
} from '../../../src/policy/settings';
import { effectiveTailCap } from '../../../src/policy/thresholds';

describe('settings defaults', () => {
  test('the defaults object is frozen and is what an empty input parses to', () => {
    assert.ok(Object.isFrozen(DEFAULT_COMPACTION_SETTINGS));
    assert.deepEqual(CompactionSettingsSchema.parse({}), { ...DEFAULT_COMPACTION_SETTINGS });
  });

  test('the DESIGN §5 figures', () => {
    assert.deepEqual(
      { ...DEFAULT_COMPACTION_SETTINGS },
      {
        enabled: true,
        auto: true,
        reserveTokens: 16384,
        tailTurns: 3,
        tailCapTokens: 16384,
        pruneMinChars: 8192,
        pruneHeadChars: 4096,
        pruneTailChars: 1024,
        pruneSkipSummaryRatio: 0.25,
        summaryMaxTokens: 8192,
        summaryWindowShare: 0.1,
        memoryMaxTokens: 2048,
        memoryWindowShare: 0.05,
        summaryRequest: 'continue',
        pruneOnlyWhenItPays: true,
        trimLongSummaries: true,
        mustLandAtTarget: true,
        oversizeShareOfWindow: 0.25,
        breakerThreshold: 3,
        breakerCoolDownSteps: 20,
        perMessageOverheadTokens: 4,
        minRoomTokens: 1024,
      },
    );
  });

  test('the target is half the trigger when unset; histories from before "land with room" keep three quarters', () => {
    assert.equal(TARGET_SHARE_OF_TRIGGER, 0.5);
    assert.equal(EARLIER_TARGET_SHARE_OF_TRIGGER, 0.75);
    assert.ok(!('targetShareOfTrigger' in DEFAULT_COMPACTION_SETTINGS), 'no default in the object: the rules choose it');
    assert.equal(resolveCompactionSettings(131_072).targetTokens, 57_344);
    assert.equal(resolveCompactionSettings(131_072, {}, { landWithRoom: true }).targetTokens, 57_344);
    assert.equal(resolveCompactionSettings(131_072, {}, { landWithRoom: false }).targetTokens, 86_016);
    // An explicit share wins under either rule.
    assert.equal(resolveCompactionSettings(131_072, { targetShareOfTrigger: 0.6 }, { landWithRoom: false }).targetTokens, 68_812);
  });

  test('a partial input keeps the other defaults', () => {
    const resolved = resolveCompactionSettings(200_000, { tailTurns: 5, auto: false });
    assert.equal(resolved.tailTurns, 5);
    assert.equal(resolved.auto, false);
    assert.equal(resolved.reserveTokens, 16384);
    assert.ok(Object.isFrozen(resolved));
  });
});

describe('derived numbers', () => {
  const cases: Array<{
    window: number;
    rules?: SettingsRules;
    trigger: number;
    summary: number;
    memory: number;
    target: number;
    hardLimit: number;
    oversize: number;
    capNoPinned: number;
    capPinned1K: number;
  }> = [
    // DESIGN §5: 32K window → trigger 16K, summary ≤ 3.2K, memory ≤ 1.6K. The target (half the
    // trigger, 8192) bounds the tail cap: 8192 − 3276 − 1638 = 3278, below half the room (5735).
    { window: 32_768, trigger: 16_384, summary: 3_276, memory: 1_638, target: 8_192, hardLimit: 31_744, oversize: 8_192, capNoPinned: 3_278, capPinned1K: 2_278 },
    // The same window under the earlier rules (target 0.75 × trigger): half the room bounds the cap, ≈ 6K.
    { window: 32_768, rules: { landWithRoom: false }, trigger: 16_384, summary: 3_276, memory: 1_638, target: 12_288, hardLimit: 31_744, oversize: 8_192, capNoPinned: 5_735, capPinned1K: 5_235 },
    // 128K: the large-window defaults apply unchanged.
    { window: 131_072, trigger: 114_688, summary: 8_192, memory: 2_048, target: 57_344, hardLimit: 130_048, oversize: 32_768, capNoPinned: 16_384, capPinned1K: 16_384 },
    { window: 1_000_000, trigger: 983_616, summary: 8_192, memory: 2_048, target: 491_808, hardLimit: 998_976, oversize: 250_000, capNoPinned: 16_384, capPinned1K: 16_384 },
  ];
  for (const c of cases) {
    test(`${c.window} window${c.rules?.landWithRoom === false ? ' (earlier rules: target 0.75)' : ''}`, () => {
      const s = resolveCompactionSettings(c.window, {}, c.rules);
      assert.equal(s.contextWindow, c.window);
      assert.equal(s.triggerTokens, c.trigger);
      assert.equal(s.summaryBudgetTokens, c.summary);
      assert.equal(s.memoryBudgetTokens, c.memory);
      assert.equal(s.targetTokens, c.target);
      assert.equal(s.hardLimitTokens, c.hardLimit);
      assert.equal(s.oversizeTokens, c.oversize);
      assert.equal(effectiveTailCap(s, 0), c.capNoPinned);
      assert.equal(effectiveTailCap(s, 1000), c.capPinned1K);
    });
  }

  test('32K: pinned + summary + memory + a full tail lands exactly at the 50% target', () => {
    const s = resolveCompactionSettings(32_768);
    const pinned = 700;
    const after = pinned + s.summaryBudgetTokens + s.memoryBudgetTokens + effectiveTailCap(s, pinned);
    assert.equal(after, s.targetTokens);
    assert.equal(after, 8_192);
  });

  test('32K under the earlier rules: the same context lands near 10K, under the 75% target', () => {
    const s = resolveCompactionSettings(32_768, {}, { landWithRoom: false });
    const pinned = 700;
    const after = pinned + s.summaryBudgetTokens + s.memoryBudgetTokens + effectiveTailCap(s, pinned);
    assert.ok(after < s.targetTokens, `${after} ≥ ${s.targetTokens}`);
    assert.ok(after > 9_000 && after < 11_000, `${after}`);
  });

  test('the tail cap shrinks with calibration (server counts more than ours)', () => {
    const s = resolveCompactionSettings(32_768);
    assert.equal(effectiveTailCap(s, 0, 1.25), Math.floor(3_278 / 1.25));
  });

  test('the target bounds the tail cap before the half-room rule does', () => {
    const s = resolveCompactionSettings(32_768);
    // half of (16384 − 2000 − 3276 − 1638) = 4735, but 8192 − 2000 − 3276 − 1638 = 1278 keeps the result at the target.
    assert.equal(effectiveTailCap(s, 2_000), 1_278);
  });

  test('earlier rules: with large pinned messages the 75% target bounds the tail cap before the half-room rule does', () => {
    const s = resolveCompactionSettings(32_768, {}, { landWithRoom: false });
    // half of (16384 − 6000 − 3276 − 1638) = 2735, but 12288 − 6000 − 3276 − 1638 = 1374 keeps the result at the target.
    assert.equal(effectiveTailCap(s, 6_000), 1_374);
  });

  test('the tail cap is never negative when pinned messages fill the room', () => {
    const s = resolveCompactionSettings(32_768);
    assert.equal(effectiveTailCap(s, 20_000), 0);
  });
});

describe('contradictions name the field and the value', () => {
  const cases: Array<{ name: string; window: number; partial: unknown; rules?: SettingsRules; field: string; mentions: string[] }> = [
    { name: 'reserve above half the window', window: 20_000, partial: {}, field: 'reserveTokens', mentions: ['16384', '20000'] },
    { name: 'explicit reserve above half an 8K window', window: 8_192, partial: { reserveTokens: 5_000 }, field: 'reserveTokens', mentions: ['5000', '8192'] },
    { name: 'prune view not shorter than the threshold', window: 131_072, partial: { pruneHeadChars: 8_000 }, field: 'pruneMinChars', mentions: ['8000', '1024', '8192'] },
    { name: 'min room above reserve', window: 131_072, partial: { minRoomTokens: 20_000 }, field: 'minRoomTokens', mentions: ['20000', '16384'] },
    // Trigger 4096, target 2048: a summary budget of 1638 fits it, 0.3 × 8192 = 2457 does not.
    { name: 'summary budget not under the target', window: 8_192, partial: { reserveTokens: 4_096, summaryWindowShare: 0.3 }, field: 'summaryMaxTokens', mentions: ['2457', '2048'] },
    { name: 'summary budget not under the earlier 75% target', window: 8_192, partial: { reserveTokens: 4_096, summaryWindowShare: 0.4 }, rules: { landWithRoom: false }, field: 'summaryMaxTokens', mentions: ['3276', '3072'] },
    // Target 8192: summary 6553 alone fits it, with memory 3276 it does not.
    { name: 'summary and memory budgets not under the target', window: 32_768, partial: { summaryWindowShare: 0.2, memoryMaxTokens: 10_000, memoryWindowShare: 0.1 }, field: 'memoryMaxTokens', mentions: ['6553', '3276', '8192'] },
    { name: 'summary and memory budgets not under the earlier 75% target', window: 32_768, partial: { summaryWindowShare: 0.2, memoryMaxTokens: 10_000, memoryWindowShare: 0.25 }, rules: { landWithRoom: false }, field: 'memoryMaxTokens', mentions: ['6553', '8192', '12288'] },
    { name: 'oversize threshold over the trigger', window: 32_768, partial: { oversizeShareOfWindow: 0.9 }, field: 'oversizeShareOfWindow', mentions: ['0.9', '16384'] },
    { name: 'unknown field (strict)', window: 131_072, partial: { reserve: 1 }, field: '(settings)', mentions: ['reserve'] },
    { name: 'negative reserve', window: 131_072, partial: { reserveTokens: -1 }, field: 'reserveTokens', mentions: [] },
    { name: 'share of zero', window: 131_072, partial: { targetShareOfTrigger: 0 }, field: 'targetShareOfTrigger', mentions: [] },
    { name: 'window not a positive integer', window: 0, partial: {}, field: 'contextWindow', mentions: ['0'] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.throws(
        () => resolveCompactionSettings(c.window, c.partial, c.rules),
        (error: unknown) => {
          assert.ok(error instanceof CompactionSettingsError);
          assert.equal(error.code, CompactionSettingsErrorCode.invalid);
          assert.ok(
            error.issues.some((issue) => issue.field === c.field),
            `fields: ${error.issues.map((issue) => issue.field).join(', ')}`,
          );
          for (const mention of c.mentions) assert.ok(error.message.includes(mention), `${error.message} lacks ${mention}`);
          return true;
        },
      );
    });
  }

  test('an 8K window works once the reserve fits it', () => {
    const s = resolveCompactionSettings(8_192, { reserveTokens: 2_048 });
    assert.equal(s.triggerTokens, 6_144);
    assert.equal(s.summaryBudgetTokens, 819);
  });
});
