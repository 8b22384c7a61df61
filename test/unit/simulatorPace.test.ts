/**
 * The scripted agent's pace: `[sim pace=busy]` runs a command at three steps of four, and a scripted
 * step is taken at its step even when the output before it came back cut.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage } from '../../src/model/messages';
import { viewMarker } from '../../src/model/viewFormat';
import { nextReply, parseDirective, type AssistantReply } from '../../src/simulator/script';

const options = { defaultSteps: 12, followUpSteps: 12, outputBytes: { min: 10, max: 20 }, marker: undefined };

/** The tools the agent calls over a whole turn, each call answered with `answer(call)`. */
function toolsOfTurn(opening: ChatMessage[], answer: (reply: AssistantReply) => string = () => 'ok'): string[] {
  const messages = [...opening];
  const tools: string[] = [];
  for (let step = 0; step < 12; step++) {
    const reply = nextReply(messages, options);
    const call = reply.tool_calls?.[0];
    if (call === undefined) break;
    tools.push(call.function.name);
    messages.push(reply, { role: 'tool', tool_call_id: call.id, content: answer(reply) });
  }
  return tools;
}

describe('simulator pace', () => {
  it('pace=busy: commands at three steps of four, the first listing kept; a later turn keeps the pace', () => {
    assert.deepEqual(parseDirective('go [sim pace=busy steps=4]'), { steps: 4, busy: true });
    const system: ChatMessage = { role: 'system', content: 's' };
    const usual = toolsOfTurn([system, { role: 'user', content: 'Tidy up. [sim steps=12]' }]);
    const busy = toolsOfTurn([system, { role: 'user', content: 'Tidy up. [sim steps=12 pace=busy]' }]);
    const count = (tools: string[], name: string) => tools.filter((tool) => tool === name).length;
    assert.equal(count(usual, 'run_command'), 3);
    assert.equal(count(busy, 'run_command'), 8, busy.join(', '));
    assert.equal(busy[0], 'list_files', 'the first listing of a turn stays');
    assert.equal(count(busy, 'write_file'), count(usual, 'write_file'), 'notes are written as often');

    const task: ChatMessage = { role: 'user', content: 'Tidy up. [sim steps=1 pace=busy]' };
    const followUp = toolsOfTurn([system, task, { role: 'assistant', content: 'done' }, { role: 'user', content: 'Go on. [sim steps=12]' }]);
    assert.equal(count(followUp, 'run_command'), 8, 'the pace the task set holds');
  });

  it('a scripted step follows a cut output: paging through it waits for the usual cycle', () => {
    const task = ['Look into it. [sim steps=3]', '[sim call run_command {"command":"seq 1 9000"}]', '[sim call run_command {"command":"echo two"}]'].join('\n');
    const cut = (reply: AssistantReply) => (reply.tool_calls?.[0]?.function.arguments.includes('9000') ? `1\n2\n${viewMarker(7, 40_000, 48_000, 900)}\n9000` : 'two');
    assert.deepEqual(toolsOfTurn([{ role: 'system', content: 's' }, { role: 'user', content: task }], cut), ['run_command', 'run_command', 'list_files', 'finish']);
  });
});
