/**
 * search_transcript and read_output through the runTool activity over a real SQLite store (DESIGN §5
 * "Nothing lost for good"): seqs with snippets from the calling session only, and any original —
 * a user message, tool-call arguments — paged back by seq.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { RunToolResult } from '../../src/activities/types';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { activitiesOn, type TestActivities } from '../helpers/activitiesOn';

describe('search_transcript and read_output', () => {
  let dir: string;
  let store: SqliteTranscriptStore;
  let activities: TestActivities;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-search-'));
    store = new SqliteTranscriptStore(join(dir, 'transcripts.db'));
    // No model call happens here; the client only has to exist.
    activities = activitiesOn(store, dir, 'http://127.0.0.1:9/v1');
    await store.put('s', 0, { role: 'system', content: 'You are careful.' });
    await store.put('s', 1, { role: 'user', content: 'Port the parser.' });
    await store.put('s', 2, { role: 'user', content: 'CONSTRAINT: the release is code-named Osprey; never edit vendor/.' });
    const big = JSON.stringify({ path: 'src/huge.ts', content: `${'// filler line\n'.repeat(500)}export const retries = 7431;\n` });
    await store.put('s', 3, {
      role: 'assistant',
      content: 'Writing the big module.',
      tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'write_file', arguments: big } }],
    });
    await store.put('s', 4, { role: 'tool', tool_call_id: 'call_w', content: 'wrote 8000 bytes to src/huge.ts' });
    await store.put('other', 0, { role: 'user', content: 'Osprey is also named in another session' });
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Stores an assistant message calling `name` at `seq` and runs it through the activity; the output. */
  async function run(seq: number, name: string, args: Record<string, unknown>, outputCapChars = 4000): Promise<string> {
    const id = `call_${seq}`;
    await store.put('s', seq, {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    const input = { sessionId: 's', seq: seq + 1, callSeq: seq, toolCallId: id, timeoutSeconds: 5, outputCapChars };
    const result: RunToolResult = await new MockActivityEnvironment().run(activities.runTool, input);
    assert.equal(result.toolName, name);
    return (await store.get('s', seq + 1))?.message.content ?? '';
  }

  it('finds a user message and a number inside write_file arguments, by seq, with snippets, in this session only', async () => {
    const osprey = await run(10, 'search_transcript', { query: 'Osprey' });
    assert.match(osprey, /^seq 2 \(user\): .*\[Osprey\]/m, osprey);
    assert.doesNotMatch(osprey, /another session/, 'never another session');
    const number = await run(12, 'search_transcript', { query: '7431' });
    assert.match(number, /^seq 3 \(assistant\): .*\[7431\]/m, number);
    assert.match(number, /read_output with seq=N/);
    const none = await run(14, 'search_transcript', { query: 'kestrel' });
    assert.match(none, /^no message of this session contains every word of "kestrel"/);
    const invalid = await run(16, 'search_transcript', { query: '' });
    assert.match(invalid, /^error: invalid arguments for search_transcript: query/);
  });

  it('read_output pages a user message and the whole arguments of a tool call by seq', async () => {
    const user = await run(20, 'read_output', { seq: 2 });
    assert.equal(user, 'CONSTRAINT: the release is code-named Osprey; never edit vendor/.');
    const args = await run(22, 'read_output', { seq: 3, offset: 7000 });
    assert.match(args, /export const retries = 7431;/, 'the tail of the write_file body');
    const first = await run(24, 'read_output', { seq: 3, limit: 200 });
    assert.match(first, /^Writing the big module\.\n\[tool call call_w: write_file\]\n\{"path":"src\/huge\.ts"/);
    assert.match(await run(26, 'read_output', { seq: 999 }), /^error: seq 999 is not stored for this session/);
  });
});
