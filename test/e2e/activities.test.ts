/** Activity idempotency: a retry whose seq is already stored returns the row, calling nothing again. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { CallModelInput, CallModelResult, RunToolResult, SummarizeInput, SummarizeResult, SummarizeSpent, SummaryRejectedDetails } from '../../src/activities/types';
import { isSummaryMessage, SUMMARY_SECTIONS } from '../../src/model/summaryFormat';
import type { SimulatorOptions } from '../../src/simulator/options';
import { totalRejected } from '../../src/simulator/stats';
import { PER_MESSAGE_OVERHEAD_TOKENS } from '../../src/model/tokens';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import { ToolRegistry } from '../../src/tools/registry';
import type { Tool } from '../../src/tools/tool';
import { z } from 'zod';
import { activitiesOn, type TestActivities } from '../helpers/activitiesOn';

describe('activities on retry', () => {
  let dir: string;
  let store: SqliteTranscriptStore;
  let simulator: RunningSimulator;
  let activities: TestActivities;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-activities-'));
    store = new SqliteTranscriptStore(join(dir, 'transcripts.db'));
    simulator = await startSimulator();
    activities = activitiesOn(store, dir, simulator.baseURL);
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
    assert.deepEqual(result.toolCalls.map(({ id, name }) => ({ id, name })), [{ id: 'call_1', name: 'list_files' }]);
    assert.match(result.toolCalls[0]?.fingerprint ?? '', /^[0-9a-f]{16}$/, 'name and arguments hashed for the repeated-call guard');
    assert.deepEqual(result.usage, { promptTokens: 40, completionTokens: 9 });
    assert.deepEqual(result.measure.declares, ['call_1']);
    assert.equal(simulator.stats().requests, 0);
  });

  it('callModel cut short by a cancellation reports the cancellation, not a model outage', async () => {
    const slow = await startSimulator({ latencyMs: 10_000 });
    const slowActivities = activitiesOn(store, dir, slow.baseURL);
    try {
      await store.put('cancelled', 0, { role: 'user', content: 'task' });
      const env = new MockActivityEnvironment();
      const input: CallModelInput = { sessionId: 'cancelled', seq: 1, context: [[0, 0]], model: 'agentd-sim' };
      const call = env.run(slowActivities.callModel, input);
      await new Promise((resolve) => setTimeout(resolve, 300));
      env.cancel('WORKER_SHUTDOWN');
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof CancelledFailure, `got ${String(error)}`);
        assert.equal(error.message, 'WORKER_SHUTDOWN');
        return true;
      });
      assert.equal(await store.get('cancelled', 1), undefined, 'nothing stored for the cut-short call');
    } finally {
      await slow.stop();
    }
  });

  it('callModel retried with nothing stored counts the attempt before as possibly billed (a kill-soak found it counted nowhere)', async () => {
    await store.put('retry', 0, { role: 'system', content: 'sys' });
    await store.put('retry', 1, { role: 'user', content: 'task' });
    const input: CallModelInput = { sessionId: 'retry', seq: 2, context: [[0, 1]], model: 'agentd-sim' };
    const first: CallModelResult = await new MockActivityEnvironment().run(activities.callModel, input);
    assert.equal(first.possiblyBilledCalls, undefined, 'a first attempt owes nothing from before');
    const retried: CallModelResult = await new MockActivityEnvironment({ attempt: 2 }).run(activities.callModel, { ...input, seq: 3 });
    assert.equal(retried.possiblyBilledCalls, 1);
    assert.equal(retried.replayed, false);
    const replayed: CallModelResult = await new MockActivityEnvironment({ attempt: 3 }).run(activities.callModel, { ...input, seq: 3 });
    assert.equal(replayed.replayed, true);
    assert.equal(replayed.possiblyBilledCalls, undefined, 'a retry that finds the reply stored counts its stored usage instead');
    assert.deepEqual(replayed.usage, retried.usage);
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

  it('runTool does not run a world-changing call an earlier attempt started, and says so', async () => {
    const args = JSON.stringify({ path: 'once.txt', content: 'written once' });
    await store.put('w', 0, {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'write_file', arguments: args } }],
    });
    assert.equal(await store.markStarted('w', 1), true, 'the first attempt started and then its worker died');
    const input = { sessionId: 'w', seq: 1, callSeq: 0, toolCallId: 'call_w', timeoutSeconds: 5, outputCapChars: 1000 };
    const result: RunToolResult = await new MockActivityEnvironment().run(activities.runTool, input);
    assert.equal(result.isError, true);
    assert.equal(result.replayed, false);
    assert.match((await store.get('w', 1))?.message.content ?? '', /^error: interrupted: .*write_file.*not run again/);
    assert.equal(existsSync(join(dir, 'workspaces', 'w', 'once.txt')), false, 'the write did not happen a second time');
  });

  it('runTool runs a fresh world-changing call once and stores its result', async () => {
    const args = JSON.stringify({ path: 'fresh.txt', content: 'hello' });
    await store.put('w2', 0, {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_f', type: 'function', function: { name: 'write_file', arguments: args } }],
    });
    const input = { sessionId: 'w2', seq: 1, callSeq: 0, toolCallId: 'call_f', timeoutSeconds: 5, outputCapChars: 1000 };
    const result: RunToolResult = await new MockActivityEnvironment().run(activities.runTool, input);
    assert.equal(result.isError, false);
    assert.equal(readFileSync(join(dir, 'workspaces', 'w2', 'fresh.txt'), 'utf8'), 'hello');
    assert.equal(await store.markStarted('w2', 1), false, 'the start was recorded before it ran');
  });

  it('runTool turns a tool that throws into an error result the model reads, and stores it', async () => {
    const exploding: Tool = {
      name: 'explode',
      description: 'always throws',
      input: z.object({}),
      effect: 'read',
      run: async () => {
        throw new Error('disk on fire');
      },
    };
    const withExploding = activitiesOn(store, dir, simulator.baseURL, new ToolRegistry([exploding]));
    await store.put('x', 0, {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'explode', arguments: '{}' } }],
    });
    const input = { sessionId: 'x', seq: 1, callSeq: 0, toolCallId: 'call_x', timeoutSeconds: 5, outputCapChars: 1000 };
    const result: RunToolResult = await new MockActivityEnvironment().run(withExploding.runTool, input);
    assert.equal(result.isError, true);
    assert.equal((await store.get('x', 1))?.message.content, 'error: tool explode failed: disk on fire');
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
    // The ledger counts content only: the policy adds the per-message framing once itself.
    for (const measure of measures) {
      const stored = await store.get('t', measure.seq);
      assert.ok(measure.tokens > 0);
      assert.equal(measure.tokens, (stored?.tokens ?? 0) - PER_MESSAGE_OVERHEAD_TOKENS);
    }
  });
});

describe('summarize activity', () => {
  let dir: string;
  let store: SqliteTranscriptStore;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentd-summarize-'));
    store = new SqliteTranscriptStore(join(dir, 'transcripts.db'));
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** system, task, then `steps` steps of one write_file call and a ~`outputChars` result each. */
  async function conversation(sessionId: string, steps: number, outputChars: number): Promise<number> {
    await store.put(sessionId, 0, { role: 'system', content: 'You are a careful agent.' });
    await store.put(sessionId, 1, { role: 'user', content: 'Port the parser. CONSTRAINT: keep the public API unchanged.' });
    let seq = 2;
    for (let step = 1; step <= steps; step++) {
      const id = `call_${step}_0_test`;
      const args = JSON.stringify({ path: `src/part-${step}.ts`, content: `export const part${step} = ${step};` });
      await store.put(sessionId, seq++, {
        role: 'assistant',
        content: `Writing part ${step}.`,
        tool_calls: [{ id, type: 'function', function: { name: 'write_file', arguments: args } }],
      });
      await store.put(sessionId, seq++, { role: 'tool', tool_call_id: id, content: `line ${step}\n`.repeat(outputChars / 8) });
    }
    return seq - 1;
  }

  async function summarizeWith(simulatorOptions: SimulatorOptions, input: Omit<SummarizeInput, 'model'>) {
    const simulator = await startSimulator(simulatorOptions);
    try {
      const activities = activitiesOn(store, dir, simulator.baseURL);
      const result: SummarizeResult = await new MockActivityEnvironment().run(activities.summarize, { ...input, model: 'agentd-sim' });
      return { result, stats: simulator.stats() };
    } finally {
      await simulator.stop();
    }
  }

  it('writes a sectioned summary, shorter than the region, as a marked user message', async () => {
    const last = await conversation('sum-1', 6, 2000);
    const { result, stats } = await summarizeWith({}, {
      sessionId: 'sum-1', seq: last + 1, pinned: [[0, 1]], region: [[2, last]], covers: [[2, last]],
      budgetTokens: 2000, contextWindow: 32_768,
    });
    assert.equal(result.calls, 1);
    assert.equal(stats.summaryRequests, 1);
    const stored = await store.get('sum-1', last + 1);
    assert.ok(isSummaryMessage(stored?.message.content), 'the body starts with the summary marker');
    for (const section of SUMMARY_SECTIONS) assert.match(stored!.message.content!, new RegExp(`## ${section}`));
    assert.match(stored!.message.content!, /keep the public API unchanged/, 'the constraint survives');
    const regionTokens = (await store.list('sum-1')).filter((row) => row.seq >= 2 && row.seq <= last).reduce((sum, row) => sum + row.tokens, 0);
    assert.ok(result.measure.tokens < regionTokens);
  });

  it('summarizes a region bigger than the window in chunks that each fit', async () => {
    const last = await conversation('sum-2', 40, 4000);
    const { result, stats } = await summarizeWith({ contextWindow: 16_384 }, {
      sessionId: 'sum-2', seq: last + 1, pinned: [[0, 1]], region: [[2, last]], covers: [[2, last]],
      budgetTokens: 1500, contextWindow: 16_384,
    });
    assert.ok(result.calls > 1, `expected several chunks, got ${result.calls}`);
    assert.equal(stats.summaryRequests, result.calls);
    assert.equal(totalRejected(stats), 0, 'every chunk fit the window');
    assert.ok(stats.maxPromptTokens <= 16_384);
  });

  it('a chunked summary that fails after a chunk was answered is not retried, and carries what that chunk cost', async () => {
    const last = await conversation('sum-partway', 40, 4000);
    const simulator = await startSimulator({ contextWindow: 16_384, faultPlan: (index) => (index >= 1 ? { kind: 'status', status: 500 } : undefined) });
    try {
      const activities = activitiesOn(store, dir, simulator.baseURL);
      const input = { sessionId: 'sum-partway', seq: last + 1, pinned: [[0, 1]], region: [[2, last]], covers: [[2, last]], budgetTokens: 1500, contextWindow: 16_384, model: 'agentd-sim' } as SummarizeInput;
      await assert.rejects(new MockActivityEnvironment().run(activities.summarize, input), (error: unknown) => {
        assert.ok(error instanceof ApplicationFailure, String(error));
        assert.equal(error.nonRetryable, true, 'a retry would lose this attempt\'s bill and pay for the chunk again');
        const spent = error.details?.[0] as SummarizeSpent;
        assert.equal(spent.calls, 1, 'the first chunk was answered');
        assert.equal(spent.usage.promptTokens, simulator.stats().summaryPromptTokens);
        return true;
      });
    } finally {
      await simulator.stop();
    }
  });

  it('a summarize retried after its summary was stored counts what the stored summary cost (a kill-soak found it counted 0)', async () => {
    const last = await conversation('sum-retried', 6, 2000);
    const input = { sessionId: 'sum-retried', seq: last + 1, pinned: [[0, 1]], region: [[2, last]], covers: [[2, last]], budgetTokens: 2000, contextWindow: 32_768 } as Omit<SummarizeInput, 'model'>;
    // The first attempt stores its summary; its worker dies before the result reaches the workflow.
    const { result: lost, stats } = await summarizeWith({}, input);
    assert.equal(stats.summaryRequests, 1);
    const simulator = await startSimulator();
    try {
      const activities = activitiesOn(store, dir, simulator.baseURL);
      const retried: SummarizeResult = await new MockActivityEnvironment({ attempt: 2 }).run(activities.summarize, { ...input, model: 'agentd-sim' });
      assert.equal(simulator.stats().requests, 0, 'the model is not asked again');
      assert.deepEqual(retried.usage, lost.usage);
      assert.equal(retried.usage.promptTokens, stats.summaryPromptTokens, 'the tokens the endpoint reported for the stored summary');
      assert.equal(retried.usage.completionTokens, stats.summaryCompletionTokens);
      assert.deepEqual([retried.calls, retried.possiblyBilledCalls], [1, 0]);
      assert.deepEqual(retried.measure, lost.measure);
    } finally {
      await simulator.stop();
    }
  });

  for (const summarizer of ['prose', 'headings', 'lossy'] as const) {
    it(`accepts a '${summarizer}' summary as written, under agentd's header`, async () => {
      const sessionId = `sum-${summarizer}`;
      const last = await conversation(sessionId, 6, 2000);
      const { result, stats } = await summarizeWith({ summarizer }, {
        sessionId, seq: last + 1, pinned: [[0, 1]], region: [[2, last]], covers: [[2, last]],
        budgetTokens: 2000, contextWindow: 32_768,
      });
      assert.deepEqual([result.calls, result.possiblyBilledCalls, stats.summaryRequests], [1, 0, 1]);
      assert.equal(result.usage.promptTokens, stats.summaryPromptTokens);
      const content = (await store.get(sessionId, last + 1))?.message.content ?? '';
      const [header, blank, ...text] = content.split('\n');
      assert.ok(isSummaryMessage(header), 'the header line comes first');
      assert.equal(blank, '');
      assert.doesNotMatch(content, /^## Goal$/m, 'not rewritten into the asked-for sections');
      assert.ok(text.join('\n').length > 0);
    });
  }

  it('rejects a refusal at once, non-retryably, with its reason and what it cost', async () => {
    const last = await conversation('sum-refusal', 4, 2000);
    let caught: unknown;
    await summarizeWith({ summarizer: 'refusal' }, {
      sessionId: 'sum-refusal', seq: last + 1, pinned: [[0, 1]], region: [[2, last]], covers: [[2, last]],
      budgetTokens: 2000, contextWindow: 32_768,
    }).catch((error: unknown) => {
      caught = error;
    });
    assert.ok(caught instanceof ApplicationFailure, String(caught));
    assert.equal(caught.type, 'SummaryRejected');
    assert.equal(caught.nonRetryable, true);
    const details = caught.details?.[0] as SummaryRejectedDetails;
    assert.equal(details.reason, 'refusal');
    assert.equal(details.calls, 1);
    assert.ok(details.usage.promptTokens > 0, 'the answered request is billed');
    assert.equal(await store.get('sum-refusal', last + 1), undefined, 'nothing stored');
  });

  it('rejects a summary that is not shorter than what it replaces', async () => {
    const last = await conversation('sum-3', 2, 200);
    await assert.rejects(
      summarizeWith({ summarizer: 'long' }, {
        sessionId: 'sum-3', seq: last + 1, pinned: [[0, 1]], region: [[2, last]], covers: [[2, last]],
        budgetTokens: 2000, contextWindow: 32_768,
      }),
      (error: unknown) =>
        error instanceof ApplicationFailure &&
        error.type === 'SummaryRejected' &&
        error.nonRetryable === true &&
        (error.details?.[0] as SummaryRejectedDetails).reason === 'not_shorter',
    );
    assert.equal(await store.get('sum-3', last + 1), undefined, 'nothing stored');
  });
});
