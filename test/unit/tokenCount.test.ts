/**
 * Counting tokens in pieces (`countTextTokens`): the same count as the whole text where the text has
 * spaces or lines, close to it where a run without whitespace must be cut or sampled, and never a
 * lone surrogate.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens } from '../../src/model/textTokens';
import { repoRoot } from '../../harness/repo';

const ROOT = repoRoot();

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
    for (const text of [letters(8_000), 'A'.repeat(8_000), 'x'.repeat(300) + ' ' + letters(7_000), '7f3a'.repeat(2_000)]) {
      const whole = countTokens(text);
      const pieces = countTextTokens(text);
      assert.ok(Math.abs(pieces - whole) <= whole * 0.01, `${pieces} in pieces against ${whole} whole (${text.slice(0, 12)}…)`);
    }
  });

  it('estimates a stretch past 8,192 characters from samples: close where it is alike, over where it changes', () => {
    const inPieces = (text: string) => {
      let total = 0;
      for (let at = 0; at < text.length; at += 512) total += countTokens(text.slice(at, at + 512));
      return total;
    };
    for (const text of [letters(200_000), 'A'.repeat(200_000), '7f3a09'.repeat(30_000)]) {
      const exact = inPieces(text);
      assert.ok(Math.abs(countTextTokens(text) - exact) <= exact * 0.02, `${countTextTokens(text)} against ${exact} (${text.slice(0, 12)}…)`);
    }
    const changing = 'A'.repeat(60_000) + letters(60_000);
    assert.ok(countTextTokens(changing) >= inPieces(changing), 'a stretch whose content changes is over-estimated, never under');
  });

  it('does not cut a surrogate pair in two', () => {
    // 511 letters put the emoji across the 512-character limit: the cut moves before it.
    const text = 'a'.repeat(511) + '😀' + 'b'.repeat(400);
    assert.equal(countTextTokens(text), countTokens('a'.repeat(511)) + countTokens('😀' + 'b'.repeat(400)));
  });
});
