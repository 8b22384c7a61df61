/** Oversized tool results: over a quarter of the window by default, replaced by a view right away. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isOversized, oversizedView } from '../../../src/policy/oversize';
import { DEFAULT_COMPACTION_SETTINGS } from '../../../src/policy/settings';
import { VIEW_MARKER_TOKENS } from '../../../src/policy/viewSize';

const S = DEFAULT_COMPACTION_SETTINGS;

describe('isOversized', () => {
  const cases = [
    { window: 32_768, tokens: 8_192, oversized: false },
    { window: 32_768, tokens: 8_193, oversized: true },
    { window: 131_072, tokens: 15_000, oversized: false },
    { window: 131_072, tokens: 32_769, oversized: true },
    { window: 8_192, tokens: 2_049, oversized: true },
  ];
  for (const c of cases) {
    test(`${c.tokens} tokens in a ${c.window} window`, () => {
      assert.equal(isOversized({ tokens: c.tokens }, S, c.window), c.oversized);
    });
  }

  test('the share is a setting', () => {
    assert.equal(isOversized({ tokens: 5_000 }, { oversizeShareOfWindow: 0.1 }, 32_768), true);
  });

  test('dense output on a small window gets a smaller view, within a quarter of the threshold', () => {
    // 8K window: threshold 2048 tokens; 5123 chars at 2.5 chars a token is 2050 tokens, and the
    // configured 5120-char view would weigh as much as the result itself.
    const view = oversizedView({ seq: 3, tokens: 2_050, chars: 5_123 }, S, 8_192);
    assert.ok(view);
    assert.ok(view.expectedTokens <= 512, `${view.expectedTokens}`);
    assert.ok(view.headChars + view.tailChars >= 512);
    assert.ok(Math.abs(view.headChars / (view.headChars + view.tailChars) - 0.8) < 0.01, 'head:tail stays 4:1');
  });

  test('the view keeps the configured head and tail when the window affords it', () => {
    assert.deepEqual(oversizedView({ seq: 7, tokens: 50_000, chars: 200_000 }, S, 131_072), {
      seq: 7,
      headChars: 4096,
      tailChars: 1024,
      tokensBefore: 50_000,
      expectedTokens: 1280 + VIEW_MARKER_TOKENS,
    });
  });
});
