/**
 * Steps too big for one request (DESIGN §5 "Summary requests fit the window"): the
 * summarize activity sends them as views of their results and tool-call arguments, and a kept
 * step's tool-call arguments get a view in the context that is still a valid call. Real SQLite
 * store, the strict simulator over HTTP.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { SummarizeResult } from '../../src/activities/types';
import { countMessageTokens } from '../../src/model/tokens';
import type { MessageMeasure } from '../../src/policy/ledger';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { activitiesOn, type TestActivities } from '../helpers/activitiesOn';

const WINDOW = 16_384;

describe('views of steps too big for a request', () => {
  let dir: string;
  let store: SqliteTranscriptStore;
  let simulator: RunningSimulator;
  let activities: TestActivities;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-views-'));
    store = new SqliteTranscriptStore(join(dir, 'transcripts.db'));
    simulator = await startSimulator({ contextWindow: WINDOW });
    activities = activitiesOn(store, dir, simulator.baseURL);
  });
  after(async () => {
    await simulator.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** system, task, a small step, then one step whose write_file body and read result are each over the window. */
  async function hugeStep(sessionId: string): Promise<number> {
    await store.put(sessionId, 0, { role: 'system', content: 'You are a careful agent.' });
    await store.put(sessionId, 1, { role: 'user', content: 'Generate the tables. CONSTRAINT: keep them sorted.' });
    await store.put(sessionId, 2, { role: 'assistant', content: 'Looking around.', tool_calls: [{ id: 'c_a', type: 'function', function: { name: 'list_files', arguments: '{"path":"."}' } }] });
    await store.put(sessionId, 3, { role: 'tool', tool_call_id: 'c_a', content: 'src/\ntables/' });
    const body = Array.from({ length: 4000 }, (_, i) => `export const row${i} = [${i}, ${i * 7}, "${i.toString(36)}"];`).join('\n');
    await store.put(sessionId, 4, {
      role: 'assistant',
      content: 'Writing the generated table and reading it back.',
      tool_calls: [
        { id: 'c_w', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'tables/rows.ts', content: body }) } },
        { id: 'c_r', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'tables/rows.ts' }) } },
      ],
    });
    await store.put(sessionId, 5, { role: 'tool', tool_call_id: 'c_w', content: `wrote ${body.length} bytes to tables/rows.ts` });
    await store.put(sessionId, 6, { role: 'tool', tool_call_id: 'c_r', content: body });
    return 6;
  }

  it('summarizes a region holding a step over the window as views, every request within the window', async () => {
    const last = await hugeStep('v-1');
    const rows = await store.list('v-1');
    assert.ok(rows[4]!.tokens > WINDOW && rows[6]!.tokens > WINDOW, `the step is over the window (${rows[4]!.tokens}, ${rows[6]!.tokens})`);
    const input = {
      sessionId: 'v-1', seq: last + 1, pinned: [[0, 1]] as Array<[number, number]>, region: [[2, last]] as Array<[number, number]>,
      covers: [[2, last]] as Array<[number, number]>, model: 'agentd-sim', budgetTokens: 1500, contextWindow: WINDOW,
    };
    const result: SummarizeResult = await new MockActivityEnvironment().run(activities.summarize, input);
    const stats = simulator.stats();
    assert.equal(totalRejected(stats), 0, `the strict endpoint refused nothing: ${JSON.stringify(stats.rejected)}`);
    assert.ok(stats.maxPromptTokens + 1500 <= WINDOW, `largest request ${stats.maxPromptTokens} + budget fits ${WINDOW}`);
    assert.equal(stats.summaryRequests, result.calls);
    // The originals are untouched in the store.
    assert.equal((await store.get('v-1', 6))?.message.content, rows[6]!.message.content);
    assert.deepEqual((await store.get('v-1', 4))?.message, rows[4]!.message);
  });

  it('cuts a kept step\'s tool-call arguments to a view that is still a valid call naming the original', async () => {
    await hugeStep('v-2');
    const original = (await store.get('v-2', 4))!;
    const [measure]: MessageMeasure[] = await new MockActivityEnvironment().run(activities.cutToolResults, {
      sessionId: 'v-2',
      views: [{ sourceSeq: 4, viewSeq: 10, headChars: 4096, tailChars: 1024 }],
    });
    const view = (await store.get('v-2', 10))!;
    assert.equal(view.meta.kind, 'view');
    assert.equal(view.meta.replaces, 4);
    assert.equal(view.message.role, 'assistant');
    assert.ok(view.message.role === 'assistant' && original.message.role === 'assistant');
    assert.deepEqual(view.message.tool_calls?.map((call) => call.id), ['c_w', 'c_r'], 'the same calls, so their results stay answered');
    assert.deepEqual(measure?.declares, ['c_w', 'c_r']);
    const args = JSON.parse(view.message.tool_calls?.[0]?.function.arguments ?? '') as { path: string; content: string };
    assert.equal(args.path, 'tables/rows.ts', 'short values are kept');
    assert.match(args.content, /read_output with seq=4 shows the call whole/);
    assert.ok(args.content.startsWith('export const row0 = [0, 0, "0"];'), 'the head of the body');
    assert.ok(args.content.endsWith(`export const row3999 = [3999, 27993, "${(3999).toString(36)}"];`), `and its tail: ${args.content.slice(-80)}`);
    assert.equal(view.message.tool_calls?.[1]?.function.arguments, '{"path":"tables/rows.ts"}');
    assert.ok(view.tokens < original.tokens / 10, `${view.tokens} tokens, from ${original.tokens}`);
    assert.equal(view.tokens, countMessageTokens(view.message));
  });
});
