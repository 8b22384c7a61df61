/**
 * Parallel reads, end to end on a real dev server: a step's consecutive `read` tool calls run side
 * by side (the workflow schedules them all before any completes), a `write` is a barrier that runs
 * alone, and results enter the transcript in call order whatever order they finish in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { createModelClient } from '../../src/model/client';
import { startSimulator } from '../../src/simulator/server';
import { builtinTools, ToolRegistry } from '../../src/tools/registry';
import { ToolEffect } from '../../src/tools/tool';
import { batchesOf } from '../../src/workflows/toolCallBatches';
import { sleepTool, type Span } from '../../harness/sleepTool';
import { suiteStack } from '../helpers/suiteStack';

const EventType = temporal.api.enums.v1.EventType;

const TASK = [
  'read three things at once, then read, write, read, read',
  '[sim call slow_read {"label":"a","ms":600}]',
  '[sim also slow_read {"label":"b","ms":100}]',
  '[sim also slow_read {"label":"c","ms":350}]',
  '[sim call slow_read {"label":"d","ms":300}]',
  '[sim also slow_write {"label":"w","ms":300}]',
  '[sim also slow_read {"label":"e","ms":300}]',
  '[sim also slow_read {"label":"f","ms":300}]',
].join('\n');

interface ToolActivity {
  label: string;
  scheduledId: number;
  completedId: number;
}

describe('parallel read tool calls', () => {
  const stack = suiteStack();

  it('cuts calls into runs of reads and single other calls', () => {
    const call = (id: string, effect?: ToolEffect) => ({ id, name: id, ...(effect ? { effect } : {}) });
    const batches = batchesOf([call('r1', 'read'), call('r2', 'read'), call('w1', 'write'), call('u1'), call('r3', 'read'), call('r4', 'read'), call('w2', 'write')]);
    assert.deepEqual(
      batches.map((batch) => batch.map((c) => c.id)),
      [['r1', 'r2'], ['w1'], ['u1'], ['r3', 'r4'], ['w2']],
    );
  });

  it('runs a step’s reads side by side, a write alone, and records results in call order', async () => {
    const spans: Span[] = [];
    const simulator = await startSimulator();
    const tools = new ToolRegistry([...builtinTools, sleepTool('slow_read', ToolEffect.read, spans), sleepTool('slow_write', ToolEffect.write, spans)]);
    const handle = await stack.runWorker({ model: createModelClient({ baseURL: simulator.baseURL }), tools }, async () => {
      const started = await stack.sessions.start({ task: TASK, model: 'agentd-sim' });
      const result = await stack.sessions.result(started.workflowId);
      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, 3, 'two scripted steps and the finish');
      return started;
    }).finally(() => simulator.stop());

    // From the tools' own clocks: the first three overlapped; the write overlapped nothing.
    const span = (label: string) => spans.find((candidate) => candidate.label === label)!;
    assert.equal(spans.length, 7);
    for (const [x, y] of [['a', 'b'], ['a', 'c'], ['b', 'c'], ['e', 'f']] as const) {
      assert.ok(span(x).start < span(y).end && span(y).start < span(x).end, `${x} and ${y} overlapped`);
    }
    assert.ok(span('d').end <= span('w').start, 'the write started after the read before it ended');
    assert.ok(span('w').end <= Math.min(span('e').start, span('f').start), 'the reads after the write started once it ended');

    // From the history: the workflow scheduled a, b and c before any of them completed.
    const rows = await stack.store.list(handle.workflowId);
    const labelOfSeq = new Map(rows.filter((row) => row.message.role === 'tool').map((row) => [row.seq, /slow_\w+ (\w) done/.exec(String(row.message.content))?.[1] ?? '?']));
    const history = await stack.client.workflow.getHandle(handle.workflowId).fetchHistory();
    const scheduled = new Map<number, string>();
    const activities: ToolActivity[] = [];
    for (const event of history.events ?? []) {
      const id = Number(event.eventId);
      const attributes = event.activityTaskScheduledEventAttributes;
      if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && attributes?.activityType?.name === 'runTool') {
        const input = JSON.parse(Buffer.from(attributes.input!.payloads![0]!.data!).toString('utf8')) as { seq: number };
        scheduled.set(id, labelOfSeq.get(input.seq) ?? '?');
      }
      const completedFrom = Number(event.activityTaskCompletedEventAttributes?.scheduledEventId ?? 0);
      // The last step's `finish` call is no part of what is checked here.
      if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED && scheduled.has(completedFrom) && scheduled.get(completedFrom) !== '?') {
        activities.push({ label: scheduled.get(completedFrom)!, scheduledId: completedFrom, completedId: id });
      }
    }
    const activity = (label: string) => activities.find((candidate) => candidate.label === label)!;
    assert.deepEqual(activities.map((a) => a.label).sort(), ['a', 'b', 'c', 'd', 'e', 'f', 'w']);
    const firstDone = Math.min(...['a', 'b', 'c'].map((label) => activity(label).completedId));
    assert.ok(['a', 'b', 'c'].every((label) => activity(label).scheduledId < firstDone), 'a, b and c were all scheduled before any completed');
    assert.ok(activity('d').completedId < activity('w').scheduledId, 'the write was scheduled after the read before it completed');
    assert.ok(activity('w').completedId < Math.min(activity('e').scheduledId, activity('f').scheduledId), 'e and f were scheduled after the write completed');
    assert.ok(activity('e').scheduledId < activity('f').completedId && activity('f').scheduledId < activity('e').completedId, 'e and f ran side by side');

    // The transcript: each step's results follow its reply in call order, though b finished first.
    const toolRows = rows.filter((row) => row.message.role === 'tool');
    assert.deepEqual(toolRows.map((row) => labelOfSeq.get(row.seq)), ['a', 'b', 'c', 'd', 'w', 'e', 'f', '?'], 'the last is the finish call');
    for (const reply of rows.filter((row) => row.message.role === 'assistant' && (row.message.tool_calls?.length ?? 0) > 1)) {
      const ids = reply.message.role === 'assistant' ? (reply.message.tool_calls ?? []).map((call) => call.id) : [];
      const answered = rows.filter((row) => row.seq > reply.seq && row.message.role === 'tool').slice(0, ids.length);
      assert.deepEqual(answered.map((row) => (row.message.role === 'tool' ? row.message.tool_call_id : '')), ids, `results of seq ${reply.seq} in call order`);
    }
    // The new command order replays against the same code.
    await Worker.runReplayHistory({ workflowBundle: stack.bundle }, history, handle.workflowId);
    const state = await stack.sessions.state(handle.workflowId);
    assert.deepEqual(state.lastToolCalls.map((call) => call.name), ['slow_read', 'slow_read', 'slow_read', 'slow_read', 'slow_write', 'slow_read', 'slow_read', 'finish']);
  });
});
