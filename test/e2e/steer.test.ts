/**
 * Steering (`agentd send --now`): a message sent while a turn runs reaches the model in the very
 * next request of that turn, read from the requests the model endpoint received, not at the turn's
 * end; between turns it opens the next turn as any message does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentdOn, eventually, type Stack } from '../../harness/stack';
import { withRecordedWorker } from '../helpers/recordedWorker';
import { suiteStack } from '../helpers/suiteStack';

/** The workflow's model calls scheduled before it received its first signal: the requests the message could not be in. */
async function modelCallsBeforeSignal(stack: Stack, sessionId: string): Promise<number> {
  const { events } = await stack.client.workflow.getHandle(sessionId).fetchHistory();
  let calls = 0;
  for (const event of events ?? []) {
    if (event.workflowExecutionSignaledEventAttributes) return calls;
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') calls += 1;
  }
  throw new Error(`${sessionId}: no signal in its history`);
}

describe('agentd send --now', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  it('puts the message in the next model request of the turn in progress', { timeout: 120_000 }, async () => {
    await withRecordedWorker(stack, { latencyMs: 600 }, async (_simulator, proxy) => {
      const task = 'count the files, ten steps [sim steps=10]';
      await stack.sessions.start({ task, model: 'agentd-sim' }, { sessionId: 'steer-1' });
      const requests = () => proxy.calls().filter((call) => call.task === task);
      await eventually(async () => (requests().length >= 3 ? true : undefined), 'three model calls');

      // The steering text carries a directive only so the simulated agent ends its turn soon after.
      const steer = 'STEER: skip the vendor folder [sim steps=2]';
      const sent = await agentd('send', '--now', 'steer-1', steer);
      assert.equal(sent.code, 0, sent.stderr);
      assert.match(sent.stderr, /sent to steer-1 for its next model call/);
      const result = await stack.sessions.result('steer-1');

      const before = await modelCallsBeforeSignal(stack, 'steer-1');
      const seen = requests();
      assert.ok(before >= 3 && before < 10, `the message came mid-turn, after ${before} model calls`);
      assert.equal(seen[before]?.lastUserText, steer, 'the first request after the signal ends with the message');
      assert.ok(seen.slice(0, before).every((call) => !call.lastUserText.includes('STEER')), 'no earlier request carried it');
      assert.equal(result.turns, 1, 'the message steered the turn in progress instead of opening another');
      assert.equal(result.outcome, 'finished');

      const rows = await stack.store.list('steer-1');
      const stored = rows.find((row) => row.message.role === 'user' && row.message.content === steer);
      assert.ok(stored, 'the message is in the transcript');
      // After the previous step's tool results, before the reply it steered: the request stays valid.
      assert.equal(rows[stored.seq - 1]?.message.role, 'tool');
      assert.equal(rows[stored.seq + 1]?.message.role, 'assistant');
    });
  });

  it('between turns, opens the next turn like any message', { timeout: 120_000 }, async () => {
    await stack.withWorker({}, async () => {
      await stack.sessions.start({ task: 'one short turn [sim steps=2]', model: 'agentd-sim', awaitMessagesSeconds: 60 }, { sessionId: 'steer-2' });
      await eventually(async () => ((await stack.sessions.state('steer-2')).status === 'waiting_for_message' ? true : undefined), 'the session to wait for a message');
      await stack.sessions.send('steer-2', 'and one more [sim steps=1]', { now: true });
      await eventually(async () => ((await stack.sessions.state('steer-2')).turn === 2 ? true : undefined), 'the second turn');
      await stack.sessions.handle('steer-2').cancel();
    });
  });
});
