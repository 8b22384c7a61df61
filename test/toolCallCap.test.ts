/**
 * Bounded fan-out (issue 26): a model reply that declares 10,000 tool calls runs at most
 * `maxToolCallsPerReply` of them; the model is told of the rest in an error notice and the session
 * goes on. Before the cap, Temporal refused the step's 10,000 activities and the workflow task
 * failed again and again, forever. The endpoint is a raw HTTP server, not the simulator: a reply
 * this size is what a model does by accident, not a habit the simulator has.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { capToolCalls } from '../src/model/toolCallCap';
import { createModelClient } from '../src/model/client';
import { readAll, serveOnLoopback, type LoopbackHttp } from './helpers/loopbackHttp';
import { startStack, type Stack } from './helpers/stack';
import { toolResults } from './helpers/transcriptChecks';

const DECLARED = 10_000;
const CAP = 24;

interface SentMessage {
  role: string;
  content?: string | null;
  tool_calls?: unknown[];
}

function completion(message: Record<string, unknown>) {
  return {
    id: 'chatcmpl-fanout',
    object: 'chat.completion',
    created: 0,
    model: 'agentd-sim',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  };
}

/** First request: 10,000 reads in one reply. Every later one: a plain answer. Each request's messages are kept. */
async function fanOutEndpoint(requests: SentMessage[][]): Promise<LoopbackHttp> {
  return serveOnLoopback(async (req, res) => {
    const body = JSON.parse((await readAll(req)).toString('utf8')) as { messages: SentMessage[] };
    requests.push(body.messages);
    const calls = Array.from({ length: DECLARED }, (_, index) => ({
      id: `call_${index}`,
      type: 'function',
      // Each a different file, so the repeated-call guard stays out of it.
      function: { name: 'read_file', arguments: JSON.stringify({ path: `part-${index}.txt` }) },
    }));
    const answer = requests.length === 1 ? completion({ content: null, tool_calls: calls }) : completion({ content: 'Read what I needed.' });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
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
      const requests: SentMessage[][] = [];
      const endpoint = await fanOutEndpoint(requests);
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
          const second = requests[1] ?? [];
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
