/** Terminal output is neutralised (issue 17): escapes from model, tool or user text are shown, never obeyed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printable, printableLine } from '../../src/cli/printable';
import { renderResult, renderToolCall } from '../../src/cli/render';

const HOSTILE = 'clear\x1b[2J title\x1b]0;pwned\x07 nul\0 del\x7f csi\u009b bidi\u202e';

describe('printable', () => {
  it('shows ESC, BEL, NUL, DEL, C1 and bidi overrides as escapes, keeping newlines and tabs', () => {
    assert.equal(printable(`${HOSTILE}\n\tnext`), 'clear\\x1b[2J title\\x1b]0;pwned\\x07 nul\\x00 del\\x7f csi\\x9b bidi\\u{202e}\n\tnext');
    assert.equal(printableLine('a\nb\tc\x1b'), 'a\\nb\\tc\\x1b');
    assert.equal(printable(printable(HOSTILE)), printable(HOSTILE), 'idempotent');
  });

  it('is applied by the renderers that print model and tool text', () => {
    const rendered = renderResult({
      sessionId: 's', outcome: 'finished', turns: 1, steps: 1, answer: HOSTILE,
      usage: { modelCalls: 1, promptTokens: 1, completionTokens: 1 },
    } as Parameters<typeof renderResult>[0]);
    assert.doesNotMatch(rendered, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    assert.match(rendered, /clear\\x1b\[2J/);
    assert.doesNotMatch(renderToolCall({ step: 1, name: 'x\x1b[31m', seq: 3, isError: false }), /\x1b/);
  });
});
