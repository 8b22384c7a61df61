/** Activity idempotency: a retry whose seq is already stored returns the row, calling nothing again. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createActivities } from '../src/activities';
import { createModelClient } from '../src/model/client';
import { startSimulator, type RunningSimulator } from '../src/simulator/server';
import { SqliteTranscriptStore } from '../src/store/sqliteStore';
import { createBuiltinRegistry } from '../src/tools/registry';

describe('activities on retry', () => {
  let dir: string;
  let store: SqliteTranscriptStore;
  let simulator: RunningSimulator;
  let activities: ReturnType<typeof createActivities>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-activities-'));
    store = new SqliteTranscriptStore(join(dir, 'transcripts.db'));
    simulator = await startSimulator();
    activities = createActivities({
      store,
      model: createModelClient({ baseURL: simulator.baseURL }),
      tools: createBuiltinRegistry(),
      workspaceRoot: join(dir, 'workspaces'),
    });
  });
  after(async () => {
    await simulator.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('callModel returns the stored reply without calling the model', async () => {
    await store.put('s', 0, { role: 'system', content: 'sys' });
    await store.put('s', 1, { role: 'user', content: 'task' });
    const reply = {
      role: 'assistant' as const,
      content: 'listing',
      tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'list_files', arguments: '{}' } }],
    };
    await store.put('s', 2, reply, { usage: { promptTokens: 40, completionTokens: 9 } });
    const result = await activities.callModel({ sessionId: 's', seq: 2, context: [[0, 1]], model: 'agentd-sim' });
    assert.equal(result.replayed, true);
    assert.deepEqual(result.toolCalls, [{ id: 'call_1', name: 'list_files' }]);
    assert.deepEqual(result.usage, { promptTokens: 40, completionTokens: 9 });
    assert.deepEqual(result.measure.declares, ['call_1']);
    assert.equal(simulator.stats().requests, 0);
  });

  it('runTool returns the stored result without running the tool', async () => {
    await store.put('s', 3, { role: 'tool', tool_call_id: 'call_1', content: 'a.txt' }, { toolName: 'list_files', isError: false });
    const result = await activities.runTool({
      sessionId: 's',
      seq: 3,
      callSeq: 2,
      toolCallId: 'call_1',
      timeoutSeconds: 5,
      outputCapChars: 1000,
    });
    assert.equal(result.replayed, true);
    assert.equal(result.toolName, 'list_files');
    assert.equal(result.measure.answers, 'call_1');
  });

  it('storeMessages measures what it stores', async () => {
    const measures = await activities.storeMessages({
      sessionId: 't',
      messages: [
        { seq: 0, message: { role: 'system', content: 'be brief' } },
        { seq: 1, message: { role: 'user', content: 'count the files' } },
      ],
    });
    assert.deepEqual(measures.map((measure) => [measure.seq, measure.role]), [[0, 'system'], [1, 'user']]);
    assert.ok(measures.every((measure) => measure.tokens > 4));
  });
});
