/**
 * Determinism: recorded histories replay against today's workflow code. A failure here means a
 * change altered command order; guard it with `patched()` (docs/guide/development.md, "Changing workflow code safely").
 * Record a new fixture with AGENTD_RECORD_HISTORIES=1. Fixtures are binary protobuf: the JSON form
 * needs the SDK's protobufjs instance, which npm installs twice here.
 */
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compactNowUpdate } from '../../src/session/definitions';
import { repoRoot } from '../../harness/repo';
import { eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

const FIXTURES = join(repoRoot(), 'test', 'fixtures', 'histories');
const { History } = temporal.api.history.v1;

describe('replay', () => {
  const stack = suiteStack();

  it('replays a fresh history of a two-turn session with signals and queries', async () => {
    const history = await stack.withWorker({}, async () => {
      const handle = await stack.sessions.start({
        task: 'replay me [sim steps=5]',
        model: 'agentd-sim',
        awaitMessagesSeconds: 30,
      });
      await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.status === 'waiting_for_message' ? state : undefined;
      }, 'waiting_for_message');
      await handle.signal('message', { bad: 'payload' });
      await stack.sessions.send(handle.workflowId, 'and one more [sim steps=1]');
      await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.turn === 2 && state.status === 'waiting_for_message' ? state : undefined;
      }, 'second turn done');
      await handle.cancel();
      await assert.rejects(handle.result());
      return handle.fetchHistory();
    });
    assert.ok((history.events?.length ?? 0) > 30);
    await Worker.runReplayHistory({ workflowBundle: stack.bundle }, history);
    if (process.env.AGENTD_RECORD_HISTORIES === '1') {
      mkdirSync(FIXTURES, { recursive: true });
      writeFileSync(join(FIXTURES, 'two-turns-signal-cancel.pb'), History.encode(history).finish());
    }
  });

  it('replays the first run of a session that continued as new', async () => {
    const history = await stack.withWorker({ contextWindow: 32_768 }, async () => {
      const handle = await stack.sessions.start({
        task: 'replay across runs [sim steps=30 output=4000-12000]',
        model: 'agentd-sim',
        contextWindow: 32_768,
        continueAsNew: { maxHistoryEvents: 120, maxHistoryBytes: 10_000_000 },
      });
      const firstRunId = (await handle.describe()).runId;
      await stack.sessions.result(handle.workflowId);
      return stack.client.workflow.getHandle(handle.workflowId, firstRunId).fetchHistory();
    });
    const last = history.events?.[history.events.length - 1];
    assert.ok(last?.workflowExecutionContinuedAsNewEventAttributes, 'the first run ended by continuing as new');
    await Worker.runReplayHistory({ workflowBundle: stack.bundle }, history);
    if (process.env.AGENTD_RECORD_HISTORIES === '1') {
      writeFileSync(join(FIXTURES, 'continued-as-new-first-run.pb'), History.encode(history).finish());
    }
  });

  it('replays a session paused by a budget guard, compacted on request while paused, then approved', async () => {
    const history = await stack.withWorker({}, async () => {
      const handle = await stack.sessions.start({ task: 'replay a pause [sim steps=5]', model: 'agentd-sim', maxSteps: 2 });
      await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.status === 'waiting_for_approval' ? state : undefined;
      }, 'waiting_for_approval');
      await handle.executeUpdate(compactNowUpdate);
      await stack.sessions.approve(handle.workflowId, { maxSteps: 10 });
      assert.equal((await stack.sessions.result(handle.workflowId)).outcome, 'finished');
      return handle.fetchHistory();
    });
    const patchIds = (history.events ?? []).flatMap((event) => {
      const data = event.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
      return data ? [(JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id] : [];
    });
    assert.deepEqual(patchIds, ['fleet-search-attributes', 'fleet-index-refresh-30s', 'land-with-room', 'compaction-degrades-gracefully', 'tool-call-views', 'memory-at-truncation', 'truncation-keeps-summary-and-memory', 'workspace-affinity', 'workspace-owner-eagerly', 'quick-tool-calls-locally', 'budget-guards-pause'], 'the patched paths this fixture keeps replayable');
    await Worker.runReplayHistory({ workflowBundle: stack.bundle }, history);
    if (process.env.AGENTD_RECORD_HISTORIES === '1') {
      writeFileSync(join(FIXTURES, 'budget-pause-approve.pb'), History.encode(history).finish());
    }
  });

  it('replays every recorded history fixture', async () => {
    const files = readdirSync(FIXTURES).filter((file) => file.endsWith('.pb'));
    assert.ok(files.length > 0, `no fixtures in ${FIXTURES}`);
    for (const file of files) {
      const history = History.decode(readFileSync(join(FIXTURES, file)));
      await Worker.runReplayHistory({ workflowBundle: stack.bundle }, history, file);
    }
  });
});
