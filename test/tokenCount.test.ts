/**
 * Counting tokens in pieces (`countTextTokens`): the same count as the whole text where the text has
 * spaces, close to it where a run without whitespace must be cut, and never a lone surrogate.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens } from '../src/model/tokens';

const ROOT = join(__dirname, '..', '..');

function letters(chars: number): string {
  let text = '';
  for (let index = 0; text.length < chars; index += 1) text += String.fromCharCode(97 + ((index * 7 + (index >> 3)) % 26));
  return text;
}

describe('countTextTokens', () => {
  it('counts prose, code and JSON exactly as the whole text', () => {
    for (const file of ['README.md', 'docs/design.md', 'src/policy/decide.ts', 'package.json']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      assert.ok(text.length > 2_000, `${file} is long enough to be counted in pieces`);
      assert.equal(countTextTokens(text), countTokens(text), file);
    }
  });

  it('stays within 1% of the whole count on runs without whitespace', () => {
    for (const text of [letters(20_000), 'A'.repeat(20_000), 'x'.repeat(300) + ' ' + letters(9_000), '7f3a'.repeat(3_000)]) {
      const whole = countTokens(text);
      const pieces = countTextTokens(text);
      assert.ok(Math.abs(pieces - whole) <= whole * 0.01, `${pieces} in pieces against ${whole} whole (${text.slice(0, 12)}…)`);
    }
  });

  it('does not cut a surrogate pair in two', () => {
    // 511 letters put the emoji across the 512-character limit: the cut moves before it.
    const text = 'a'.repeat(511) + '😀' + 'b'.repeat(400);
    assert.equal(countTextTokens(text), countTokens('a'.repeat(511)) + countTokens('😀' + 'b'.repeat(400)));
  });
});
