/**
 * Size limits on user text (issue 17), on the real stack: the client refuses a task or message over the
 * limit, naming the field; a 1.5 MB task from around the client and a 2 MB `message` signal are stored whole,
 * enter the context as head-and-tail views that read_output pages, and the session goes on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageSignal, TASK_QUEUE, WORKFLOW_TYPE } from '../../src/session/definitions';
import { parseSessionInput, SessionInputError } from '../../src/session/input';
import { DEFAULT_MAX_USER_TEXT_BYTES } from '../../src/session/limits';
import type { SessionResult } from '../../src/session/state';
import { totalRejected } from '../../src/simulator/stats';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { eventually } from '../../harness/stack';
import { toolResults } from '../../harness/transcriptChecks';
import { suiteStack } from '../helpers/suiteStack';

const MINUTE = 60_000;

/** Text of about `bytes` bytes that tokenizes like prose (a repeated single char would be unrealistically cheap). */
function bulk(bytes: number, tag: string): string {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const word = `${words[i % words.length]}${i % 97} `;
    parts.push(word);
    size += word.length;
  }
  return `${parts.join('').slice(0, bytes - tag.length)}${tag}`;
}

describe('size limits on user text', () => {
  const stack = suiteStack();

  it('the client and CLI refuse a task or message over the limit, naming the field, exit 2', async () => {
    const big = 'x'.repeat(DEFAULT_MAX_USER_TEXT_BYTES + 1);
    await assert.rejects(
      stack.sessions.start({ task: big, model: 'agentd-sim' }, { sessionId: 'too-big-task' }),
      (error: unknown) => error instanceof SessionInputError && /^invalid session input: task: is 262145 bytes; at most 262144/.test(error.message),
    );
    await assert.rejects(stack.sessions.handle('too-big-task').describe(), /not found/i);
    await assert.rejects(
      stack.sessions.send('any-session', big),
      (error: unknown) => error instanceof SessionInputError && /message\.text: is 262145 bytes/.test(error.message),
    );
    // One argv string is capped at 128 KiB by Linux, so the CLI is checked under a lowered limit.
    const env = { TEMPORAL_ADDRESS: stack.temporal.address, AGENTD_STORE: stack.storeFile, AGENTD_MAX_USER_TEXT_BYTES: '1000' };
    const start = await finished(spawnNode(entryPoint('cli/main'), ['start', 'y'.repeat(1001), '--model', 'agentd-sim'], env));
    assert.equal(start.code, 2, start.stderr);
    assert.match(start.stderr, /task: is 1001 bytes; at most 1000 are allowed \(AGENTD_MAX_USER_TEXT_BYTES\)/);
    const send = await finished(spawnNode(entryPoint('cli/main'), ['send', 'any-session', 'y'.repeat(1001)], env));
    assert.equal(send.code, 2, send.stderr);
    assert.match(send.stderr, /message\.text: is 1001 bytes/);
  });

  it('a 1.5 MB task started around the client and a 2 MB message signal are viewed, paged and survived', { timeout: 6 * MINUTE }, async () => {
    await stack.withWorker({}, async (simulator) => {
      const taskTail = '<<END OF THE BIG TASK>>';
      const head = '[sim steps=3]\n[sim call read_output {"seq":1,"offset":0,"limit":13}]\n';
      const task = head + bulk(1_500_000, taskTail);
      // What `temporal workflow start --input …` does: no client-side limit.
      const handle = await stack.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: TASK_QUEUE,
        workflowId: 'big-task-1',
        args: [parseSessionInput({ task, model: 'agentd-sim', contextWindow: 128_000, awaitMessagesSeconds: 120, maxTurns: 2 })],
      });
      await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.status === 'waiting_for_message' ? state : undefined;
      }, 'the first turn to end', 3 * MINUTE);

      const message = `[sim steps=2]\n${bulk(2_000_000, '<<END OF THE BIG MESSAGE>>')}`;
      await handle.signal(messageSignal, { text: message });
      const result = (await handle.result()) as SessionResult;
      assert.equal(result.outcome, 'finished');

      const rows = await stack.store.list(handle.workflowId);
      const users = rows.filter((row) => row.message.role === 'user');
      const originals = users.filter((row) => row.meta.kind !== 'view').map((row) => String(row.message.content));
      assert.ok(originals.includes(task), 'the task is stored whole');
      assert.ok(originals.includes(message), 'the message is stored whole');
      const views = users.filter((row) => row.meta.kind === 'view');
      assert.equal(views.length, 2, 'both entered the context as views');
      for (const view of views) {
        assert.match(String(view.message.content), /chars cut from this output \(seq \d+\); read_output with seq=\d+/);
        assert.ok(String(view.message.content).length < 10_000);
      }
      const paged = toolResults(rows).find((entry) => entry.name === 'read_output');
      assert.ok(paged, 'read_output was called');
      assert.match(paged.output, /^\[sim steps=3\]\n\[showing chars 0-13 of \d+ of seq 1/);
      assert.equal(totalRejected(simulator.stats()), 0, 'no request was too long for the model');
      console.log(`user text: a ${task.length}-char task and a ${message.length}-char message were viewed; the session finished in ${result.steps} steps`);
    });
  });
});
