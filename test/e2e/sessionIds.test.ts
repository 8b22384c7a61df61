/**
 * A session id is used once (issue 17), on the real stack: a dev server, a SQLite store, the simulator and
 * the `agentd` CLI as a child process. Reused ids are refused, an explicit replacement never shows the old
 * rows, and ids that cannot be a folder name are refused before anything starts — by the client, the CLI,
 * and the workflow itself when the stock `temporal` path bypasses both.
 */
import { WorkflowFailedError } from '@temporalio/client';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SessionIdTakenError } from '../../src/client/sessionClient';
import { TASK_QUEUE, WORKFLOW_TYPE } from '../../src/session/definitions';
import { parseSessionInput, SessionInputError } from '../../src/session/input';
import { archivedKey } from '../../src/store/transcriptStore';
import { agentdOn } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

const BAD_IDS = ['../escape1', '..', '.', 'a/b', 'x'.repeat(300), '-leading-dash', 'white space', 'nul\0byte'];

function userTexts(rows: ReadonlyArray<{ message: { role: string; content?: unknown } }>): string[] {
  return rows.filter((row) => row.message.role === 'user').map((row) => String(row.message.content));
}

describe('session ids are used once', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  it('refuses an id whose session completed or still runs, exit 2, and the old transcript stays as it was', async () => {
    await stack.withWorker({}, async () => {
      const first = await agentd('start', 'FIRST user task [sim steps=2]', '--id', 'reused-1', '--follow', '--json');
      assert.equal(first.code, 0, first.stderr);
      const before = await stack.store.list('reused-1');

      const again = await agentd('start', 'SECOND user task [sim steps=2]', '--id', 'reused-1', '--follow');
      assert.equal(again.code, 2, again.stderr);
      assert.match(again.stderr, /session id reused-1 was already used by a session that has ended; choose another --id, or pass --replace-closed/);
      await assert.rejects(
        stack.sessions.start({ task: 'SECOND from code', model: 'agentd-sim' }, { sessionId: 'reused-1' }),
        (error: unknown) => error instanceof SessionIdTakenError && !error.running,
      );
      assert.deepEqual(await stack.store.list('reused-1'), before, 'the first transcript is untouched');

      const waiting = await stack.sessions.start({ task: 'waits [sim steps=1]', model: 'agentd-sim', awaitMessagesSeconds: 60 }, { sessionId: 'running-1' });
      const busy = await agentd('start', 'take over', '--id', 'running-1', '--replace-closed');
      assert.equal(busy.code, 2, busy.stderr);
      assert.match(busy.stderr, /session id running-1 is in use by a running session/);
      await waiting.cancel();
    });
  });

  it('--replace-closed starts a new session under the id that never shows the old rows; they are archived', async () => {
    await stack.withWorker({}, async () => {
      const first = await stack.sessions.start({ task: 'OLD owner task [sim steps=2]', model: 'agentd-sim' }, { sessionId: 'replaced-1' });
      await stack.sessions.result('replaced-1');
      const firstRun = (await first.describe()).runId;

      const second = await agentd('start', 'NEW owner task [sim steps=2]', '--id', 'replaced-1', '--replace-closed', '--follow', '--json');
      assert.equal(second.code, 0, second.stderr);
      const result = JSON.parse(second.stdout) as { outcome: string; answer?: string };
      assert.equal(result.outcome, 'finished');

      const current = await stack.store.list('replaced-1');
      assert.equal(userTexts(current)[0], 'NEW owner task [sim steps=2]');
      assert.deepEqual(userTexts(current).filter((text) => text.includes('OLD')), [], 'no row of the old session');
      const archived = await stack.store.list(archivedKey('replaced-1', firstRun));
      assert.equal(userTexts(archived)[0], 'OLD owner task [sim steps=2]');

      const transcript = await agentd('transcript', 'replaced-1', '--full');
      assert.equal(transcript.code, 0, transcript.stderr);
      assert.match(transcript.stdout, /NEW owner task/);
      assert.doesNotMatch(transcript.stdout, /OLD owner task/);
    });
  });

  it('a start around the client that reuses a closed id fails clearly and leaves the old rows alone', async () => {
    await stack.withWorker({}, async () => {
      await stack.sessions.start({ task: 'ORIGINAL task [sim steps=2]', model: 'agentd-sim' }, { sessionId: 'stock-reuse-1' });
      await stack.sessions.result('stock-reuse-1');
      const before = await stack.store.list('stock-reuse-1');
      // What `temporal workflow start --workflow-id stock-reuse-1` does: its default policy allows a duplicate.
      const handle = await stack.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: TASK_QUEUE,
        workflowId: 'stock-reuse-1',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        args: [parseSessionInput({ task: 'INTRUDER task [sim steps=2]', model: 'agentd-sim', contextWindow: 32_768 })],
      });
      await assert.rejects(handle.result(), (error: unknown) => {
        assert.ok(error instanceof WorkflowFailedError);
        assert.match(String(error.cause?.message), /session id stock-reuse-1 was used by an earlier session/);
        return true;
      });
      assert.deepEqual(await stack.store.list('stock-reuse-1'), before, 'the intruder neither read nor wrote the old rows');
    });
  });

  it('refuses bad ids before anything starts: client, CLI (exit 2 naming --id) and the workflow itself', async () => {
    for (const bad of BAD_IDS) {
      await assert.rejects(
        stack.sessions.start({ task: 'x', model: 'agentd-sim' }, { sessionId: bad }),
        (error: unknown) => error instanceof SessionInputError && /^invalid session input: sessionId: /.test(error.message),
        JSON.stringify(bad),
      );
      if (bad.includes('\0')) continue; // a NUL cannot be passed on a command line
      const cli = await agentd('start', 'x', '--model', 'agentd-sim', '--id', bad);
      assert.equal(cli.code, 2, `${JSON.stringify(bad)}: ${cli.stderr}`);
      assert.match(cli.stderr, /--id: /);
    }
    const started = await stack.client.workflow.list({ query: 'WorkflowType = "agentSession"' });
    for await (const execution of started) assert.ok(!BAD_IDS.includes(execution.workflowId), `${execution.workflowId} was started`);

    await stack.withWorker({}, async () => {
      for (const bad of ['../escape1', '..', 'x'.repeat(300)]) {
        const handle = await stack.client.workflow.start(WORKFLOW_TYPE, {
          taskQueue: TASK_QUEUE,
          workflowId: bad,
          args: [parseSessionInput({ task: 'x [sim steps=1]', model: 'agentd-sim', contextWindow: 32_768 })],
        });
        await assert.rejects(handle.result(), (error: unknown) => {
          assert.ok(error instanceof WorkflowFailedError);
          assert.match(String(error.cause?.message), /^invalid session input: sessionId: /);
          return true;
        });
      }
    });
    assert.ok(!existsSync(join(stack.workspaceRoot, '..', 'escape1')), 'no folder outside the workspace root');
    const folders = existsSync(stack.workspaceRoot) ? readdirSync(stack.workspaceRoot) : [];
    assert.ok(!folders.some((name) => name.length > 128), 'no folder for an over-long id');
  });
});
