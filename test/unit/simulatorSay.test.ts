/** The scripted agent's `[sim say …]` line: the text it replies with at the step of the call before it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextReply, parseDirective, withoutDirective } from '../../src/simulator/script';

const options = { defaultSteps: 3, followUpSteps: 2, outputBytes: { min: 10, max: 20 }, marker: undefined };

describe('[sim say …]', () => {
  it("replaces the scripted step's text; base64: hides it from the user message", () => {
    const hidden = Buffer.from('The root cause is TAB_WIDTH = 4.').toString('base64');
    const task = [
      'Fix it.',
      '[sim call list_files {"path":"."}]',
      "[sim say I'll keep the old API.]",
      '[sim call read_file {"path":"a.ts"}]',
      `[sim say base64:${hidden}]`,
    ].join('\n');
    const first = nextReply([{ role: 'system', content: 's' }, { role: 'user', content: task }], options);
    assert.equal(first.content, "I'll keep the old API.");
    assert.equal(first.tool_calls?.[0]?.function.name, 'list_files');
    const id = first.tool_calls?.[0]?.id ?? '';
    const second = nextReply(
      [{ role: 'system', content: 's' }, { role: 'user', content: task }, first, { role: 'tool', tool_call_id: id, content: 'a.ts' }],
      options,
    );
    assert.equal(second.content, 'The root cause is TAB_WIDTH = 4.');
    assert.equal(second.tool_calls?.[0]?.function.name, 'read_file');
    // What the user asked, as the simulator quotes and summarizes it: the say lines are plumbing, in plain words or not.
    assert.equal(withoutDirective(task), 'Fix it.');
    assert.equal(parseDirective(task), undefined, 'a say line is not a [sim …] directive either');
  });
});
