/** Cutting a summary that came back over its budget (src/model/summaryTrim.ts), counted as the store counts. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { countTextTokens } from '../../src/model/textTokens';
import { trimmedMarker, trimSummaryToBudget } from '../../src/model/summaryTrim';

/** Lines a successor cannot rebuild: each names a path, an error, a constraint, a command or a number. */
const TELLING_LINES = [
  '## Constraints',
  '- The user said we must never push to the main branch directly.',
  '- Tests have to pass under Node 20 and 22.',
  '## Progress',
  '- Edited src/policy/decide.ts to plan the half-open retry.',
  '- Running `npm run lint` reported an error in test/policy/cacheCost.test.ts.',
  '- TypeError: cannot read properties of undefined (reading seq) in applyCompaction.',
  '- The 32K window now lands at 8192 tokens after compaction.',
  '## Files touched',
  '- docs/design.md and src/model/summaryTrim.ts',
  '## Next steps',
  '- $ node --test dist/test/policy/landWithRoom.test.js',
];

const WORDS = ['quiet', 'river', 'amber', 'lantern', 'meadow', 'velvet', 'harbor', 'cobalt', 'willow', 'ember', 'summit', 'thistle'];

/** Narrative with nothing telling in it (no digits, paths, commands or rule words), each line different. */
function narrativeLine(n: number): string {
  const pick = (k: number): string => WORDS[Math.floor(n / WORDS.length ** k) % WORDS.length]!;
  return `We spent a while with the ${pick(0)} ${pick(1)} ${pick(2)} notes and talked about how the ${pick(1)} part felt, then moved along calmly.`;
}

/** About 6 000 tokens: the telling lines spread one every twenty narrative lines. */
function longSummary(): { text: string; narrative: string[] } {
  const lines: string[] = [];
  const narrative: string[] = [];
  let n = 0;
  for (const telling of TELLING_LINES) {
    lines.push(telling);
    for (let i = 0; i < 20; i++) {
      const line = narrativeLine(n++);
      narrative.push(line);
      lines.push(line);
    }
  }
  return { text: lines.join('\n'), narrative };
}

describe('trimSummaryToBudget', () => {
  const { text, narrative } = longSummary();
  const total = countTextTokens(text);
  const trimmed = trimSummaryToBudget(text, 1_000);
  const kept = trimmed.split('\n');

  test('the generated summary is about 6 000 tokens and its narrative matches no telling rule', () => {
    assert.ok(total > 5_500 && total < 6_500, `${total}`);
    assert.equal(new Set(narrative).size, narrative.length, 'narrative lines are distinct (repeats are dropped)');
    assert.ok(narrative.every((line) => !/\d|\/|`|\$ /.test(line)));
  });

  test('a 6 000-token summary cut to 1 000 fits the budget', () => {
    assert.ok(countTextTokens(trimmed) <= 1_000, `${countTextTokens(trimmed)} tokens`);
    assert.ok(countTextTokens(trimmed) > 800, 'the room is used, not left empty');
  });

  test('every telling line is kept; narrative only fills what room is left', () => {
    for (const line of TELLING_LINES) assert.ok(kept.includes(line), `dropped: ${line}`);
    const keptNarrative = kept.filter((line) => narrative.includes(line));
    assert.ok(keptNarrative.length < narrative.length / 4, `${keptNarrative.length} of ${narrative.length} narrative lines kept`);
  });

  test('kept lines are in their original order, and the marker ends the text', () => {
    const body = kept.slice(0, -1);
    const original = text.split('\n');
    const positions = body.map((line) => original.indexOf(line));
    assert.ok(positions.every((position) => position >= 0), 'a line that was not in the summary');
    assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
    assert.equal(kept[kept.length - 1], trimmedMarker(total, 1_000));
  });

  test('a summary under its budget is returned unchanged', () => {
    const short = TELLING_LINES.join('\n');
    assert.equal(trimSummaryToBudget(short, 1_000), short);
    assert.equal(trimSummaryToBudget(text, total), text, 'exactly at the budget is under it');
  });

  // Models answer long in one paragraph, or as minified JSON when asked for structure: the telling
  // parts are found inside such a line, not only whole lines.
  test('a one-paragraph summary keeps its telling sentences', () => {
    const sentences = TELLING_LINES.filter((line) => !line.startsWith('#')).map((line) => line.slice(2));
    const paragraph = sentences.map((sentence, index) => `${sentence} ${narrative.slice(index * 30, index * 30 + 30).join(' ')}`).join(' ');
    assert.ok(!paragraph.includes('\n') && countTextTokens(paragraph) > 4_000);
    const cut = trimSummaryToBudget(paragraph, 1_000);
    assert.ok(countTextTokens(cut) <= 1_000, `${countTextTokens(cut)} tokens`);
    for (const sentence of sentences) assert.ok(cut.includes(sentence), `dropped: ${sentence}`);
  });

  test('a minified JSON summary keeps its telling values', () => {
    const values = TELLING_LINES.filter((line) => !line.startsWith('#')).map((line) => line.slice(2));
    const json = JSON.stringify({ progress: values.flatMap((value, index) => [value, ...narrative.slice(index * 30, index * 30 + 30)]) });
    assert.ok(!json.includes('\n') && countTextTokens(json) > 4_000);
    const cut = trimSummaryToBudget(json, 1_000);
    assert.ok(countTextTokens(cut) <= 1_000, `${countTextTokens(cut)} tokens`);
    for (const value of values) assert.ok(cut.includes(JSON.stringify(value)), `dropped: ${value}`);
  });

  test('property: whatever the lines, the cut fits a budget of 200 or more and keeps lines of the summary only', () => {
    const lineArb = fc.oneof(
      fc.constantFrom(...TELLING_LINES),
      fc.string({ minLength: 0, maxLength: 600 }),
      fc.integer({ min: 0, max: 100_000 }).map(narrativeLine),
    );
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 120 }), fc.integer({ min: 200, max: 3_000 }), (lines, budget) => {
        const summary = lines.join('\n');
        const cut = trimSummaryToBudget(summary, budget);
        assert.ok(countTextTokens(cut) <= budget, `${countTextTokens(cut)} > ${budget}`);
        if (cut === summary) return;
        // Each kept line is a whole line of the summary, or a part of a line over 400 characters.
        const original = summary.split('\n').map((line) => line.trimEnd());
        for (const line of cut.split('\n').slice(0, -1)) {
          assert.ok(original.some((whole) => whole.slice(0, 400) === line || (whole.length > 400 && whole.includes(line))), `not from the summary: ${line}`);
        }
      }),
      { numRuns: 150, seed: 61 },
    );
  });
});
