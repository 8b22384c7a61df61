/**
 * A model reply too big for the window (issue 26): it is stored whole, the next request carries a
 * head-and-tail view of it, and its tool call runs with the arguments the model wrote. Before, the
 * reply entered the context whole and the session could only fail: nothing older was left to cut.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { createModelClient } from '../../src/model/client';
import { serveScriptedReplies } from '../helpers/scriptedEndpoint';
import { suiteStack } from '../helpers/suiteStack';

const WINDOW = 65_536;
/** Prose past any window, and a file body to write that is as long. */
const RAMBLE = 'The build is green and the plan is sound. '.repeat(50_000);
const FILE_BODY = 'export const table = [' + '1, 2, 3, 5, 8, 13, 21, 34, '.repeat(100_000) + '];\n';

describe('a model reply bigger than the window', () => {
  const stack = suiteStack();

  it('is stored whole, sent as a view, and its tool call runs whole', { timeout: 120_000 }, async () => {
    const endpoint = await serveScriptedReplies((index) =>
      index === 0
        ? { content: RAMBLE, tool_calls: [{ id: 'call_big', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'table.ts', content: FILE_BODY }) } }] }
        : { content: 'Wrote the table.' },
    );
    try {
      await stack.runWorker({ model: createModelClient({ baseURL: endpoint.baseURL }) }, async () => {
        const handle = await stack.sessions.start({ task: 'Write the table.', model: 'agentd-sim', contextWindow: WINDOW });
        const result = await stack.sessions.result(handle.workflowId);
        assert.equal(result.outcome, 'finished', result.answer);
        assert.equal(result.answer, 'Wrote the table.');

        const written = await readFile(path.join(stack.workspaceRoot, handle.workflowId, 'table.ts'), 'utf8');
        assert.equal(written, FILE_BODY, 'the tool ran with the arguments as the model wrote them');

        const rows = await stack.store.list(handle.workflowId);
        const original = rows.find((row) => row.message.role === 'assistant' && row.meta.kind !== 'view');
        assert.ok(original && original.message.role === 'assistant');
        assert.equal(original.message.content, RAMBLE, 'the store keeps the reply whole');

        const sentReply = endpoint.requests[1]?.find((message) => message.role === 'assistant');
        assert.ok(sentReply, 'the second request carries the reply');
        const sentChars = (sentReply.content ?? '').length + (sentReply.tool_calls ?? []).reduce((sum, call) => sum + call.function.arguments.length, 0);
        assert.ok(sentChars < 20_000, `the reply went out as a view of ${sentChars} characters`);
        assert.match(sentReply.content ?? '', new RegExp(`read_output with seq=${original.seq}`));
        assert.equal(sentReply.tool_calls?.[0]?.id, 'call_big', 'the view declares the same call');
      });
    } finally {
      await endpoint.stop();
    }
  });
});
