/** A pruned view keeps the telling lines of the middle it cuts, within its size (DESIGN §5 "Session memory"). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { viewOf } from '../../src/activities/cutToolResults';
import { parseViewMarker } from '../../src/model/viewFormat';

const noise = (from: number, count: number): string => Array.from({ length: count }, (_, i) => `test case ${from + i}: ok`).join('\n');

describe('head-and-tail view of a tool result', () => {
  const output = `${noise(1, 300)}\nsrc/lexer.ts(88,7): error TS2322: Type 'number' is not assignable to type 'TabStop'.\n${noise(301, 300)}\nexit code: 0`;
  const request = { sourceSeq: 9, headChars: 1200, tailChars: 400 };

  it('keeps a middle error line between head and tail, and is no longer than a plain view', () => {
    const view = viewOf({ role: 'tool', tool_call_id: 'c1', content: output }, request);
    assert.ok(view?.role === 'tool');
    const text = view.content;
    assert.match(text, /error TS2322: Type 'number' is not assignable to type 'TabStop'/);
    assert.ok(text.indexOf('TS2322') > text.indexOf('pages through the original'), 'after the marker');
    assert.ok(text.endsWith(output.slice(-400)), 'the tail as before');
    assert.ok(text.length < output.length, 'shorter than the original');
    const marker = parseViewMarker(text);
    assert.ok(marker);
    const head = text.slice(0, text.indexOf('\n[… '));
    assert.equal(marker.offset, head.length, 'the marker resumes where the shorter head ends');
    assert.ok(head.length < 1200 && output.startsWith(head));
    const markerChars = text.indexOf('original …]\n') + 'original …]\n'.length - head.length;
    assert.ok(text.length - markerChars <= 1200 + 400, `${text.length - markerChars} characters besides the marker`);
  });

  it('is the plain head and tail when the middle tells nothing', () => {
    const quiet = `${noise(1, 600)}\nexit code: 0`;
    const view = viewOf({ role: 'tool', tool_call_id: 'c1', content: quiet }, request);
    assert.ok(view?.role === 'tool');
    assert.ok(view.content.startsWith(quiet.slice(0, 1200)));
    assert.ok(!view.content.includes('lines kept from the cut part'));
  });
});
