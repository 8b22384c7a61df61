/**
 * Bounded fan-out (issue 26): a model reply that declares 10,000 tool calls runs at most
 * `maxToolCallsPerReply` of them; the model is told of the rest in an error notice and the session
 * goes on. Before the cap, Temporal refused the step's 10,000 activities and the workflow task
 * failed again and again, forever. The endpoint is a raw HTTP server, not the simulator: a reply
 * this size is what a model does by accident, not a habit the simulator has.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { capToolCalls } from '../../src/model/toolCallCap';
import { createModelClient } from '../../src/model/client';
import { serveScriptedReplies, type ScriptedEndpoint } from '../helpers/scriptedEndpoint';
import { startStack, type Stack } from '../../harness/stack';
import { toolResults } from '../../harness/transcriptChecks';

const DECLARED = 10_000;
const CAP = 24;

/** First request: 10,000 reads in one reply. Every later one: a plain answer. */
function fanOutEndpoint(): Promise<ScriptedEndpoint> {
  return serveScriptedReplies((index) => {
    if (index > 0) return { content: 'Read what I needed.' };
    const calls = Array.from({ length: DECLARED }, (_, call) => ({
      id: `call_${call}`,
      type: 'function' as const,
      // Each a different file, so the repeated-call guard stays out of it.
      function: { name: 'read_file', arguments: JSON.stringify({ path: `part-${call}.txt` }) },
    }));
    return { content: null, tool_calls: calls };
  });
}

describe('tool calls per reply', () => {
  it('keeps the first calls and hands back the rest', () => {
    const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'list_files', arguments: '{}' } });
    const reply = { role: 'assistant' as const, content: null, tool_calls: [call('a'), call('b'), call('c')] };
    const capped = capToolCalls(reply, 2);
    assert.deepEqual(capped.reply.tool_calls?.map((c) => c.id), ['a', 'b']);
    assert.deepEqual(capped.dropped.map((c) => c.id), ['c']);
    assert.equal(capToolCalls(reply, 3).dropped.length, 0);
    assert.equal(capToolCalls(reply, undefined).reply, reply);
  });

  describe('on a real dev server', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(async () => {
      await stack?.stop();
    });

    it('runs at most maxToolCallsPerReply calls of a 10,000-call reply, tells the model, and goes on', { timeout: 120_000 }, async () => {
      const endpoint = await fanOutEndpoint();
      try {
        await stack.runWorker({ model: createModelClient({ baseURL: endpoint.baseURL }) }, async () => {
          const handle = await stack.sessions.start({ task: 'Read the parts.', model: 'agentd-sim', maxToolCallsPerReply: CAP });
          const result = await stack.sessions.result(handle.workflowId);
          assert.equal(result.outcome, 'finished');
          assert.equal(result.answer, 'Read what I needed.');
          assert.equal(result.steps, 2);

          const rows = await stack.store.list(handle.workflowId);
          const reply = rows.find((row) => row.message.role === 'assistant');
          assert.ok(reply && reply.message.role === 'assistant');
          assert.equal(reply.message.tool_calls?.length, CAP, 'the stored reply keeps the calls that ran');
          const dropped = reply.meta.droppedToolCalls;
          assert.ok(Array.isArray(dropped));
          assert.equal(dropped.length, DECLARED - CAP, 'the calls past the cap are kept beside the reply');
          assert.equal(toolResults(rows).length, CAP);

          // The second request is valid (every kept call answered) and ends with the notice.
          const second = endpoint.requests[1] ?? [];
          assert.equal(second.filter((message) => message.role === 'tool').length, CAP);
          const notice = second[second.length - 1];
          assert.equal(notice?.role, 'user');
          assert.match(notice?.content ?? '', new RegExp(`error: your last reply declared ${DECLARED} tool calls, but at most ${CAP} run per reply`));

          const state = await stack.sessions.state(handle.workflowId);
          assert.ok(state.warnings.some((warning) => warning.includes(`${DECLARED - CAP} past maxToolCallsPerReply ${CAP}`)), state.warnings.join('\n'));
        });
      } finally {
        await endpoint.stop();
      }
    });
  });
});
