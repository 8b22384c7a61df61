/**
 * Continue-as-new: a session whose history grows past its budget goes on in a new run carrying its
 * ledger and counters (never bodies); query, signals and update keep working across runs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CompactNowResult } from '../../src/session/state';
import { totalRejected } from '../../src/simulator/stats';
import { eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

describe('continue-as-new', () => {
  const stack = suiteStack();

  it('carries a session across runs with a small history budget; handlers keep working', async () => {
    await stack.withWorker({ latencyMs: 20, contextWindow: 32_768 }, async (simulator) => {
      const handle = await stack.sessions.start({
        task: 'many runs [sim steps=70]',
        model: 'agentd-sim',
        contextWindow: 32_768,
        awaitMessagesSeconds: 60,
        continueAsNew: { maxHistoryEvents: 150, maxHistoryBytes: 10_000_000 },
      });
      const firstRunId = (await handle.describe()).runId;
      await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.runs >= 2 ? state : undefined;
      }, 'a second run', 60_000);
      // Sent to the workflow id: it reaches whichever run is current, and is carried if pending.
      await stack.sessions.send(handle.workflowId, 'after the task, one more thing [sim steps=2]');
      const waiting = await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.turn === 2 && state.status === 'waiting_for_message' ? state : undefined;
      }, 'second turn answered', 120_000);
      assert.ok(waiting.runs >= 4, `runs: ${waiting.runs}`);
      assert.equal(waiting.step, 71 + 3, 'task steps, finish, then the follow-up turn');
      assert.notEqual((await handle.describe()).runId, firstRunId);
      // The spend ledger is carried too: every run's calls are counted once.
      const sim = simulator.stats();
      assert.equal(waiting.spend.agent.calls, waiting.usage.modelCalls);
      assert.equal(waiting.spend.agent.promptTokens, waiting.usage.promptTokens);
      assert.equal(waiting.spend.agent.calls + waiting.spend.summary.calls, sim.requests, 'agent and summary calls add up to what the simulator answered');
      assert.equal(waiting.spend.summary.calls, sim.summaryRequests);

      // Served by the latest run. A summary whose projection (memory budget included) cannot shrink
      // this small context is not started, so "nothing to compact" is a correct answer too, and the
      // state must then say so.
      const compacted: CompactNowResult = await handle.executeUpdate('compactNow');
      if (!compacted.compacted) {
        assert.equal(compacted.reason, 'nothing_to_compact', JSON.stringify(compacted));
        const after = await stack.sessions.state(handle.workflowId);
        assert.equal(after.compaction.lastManual?.compacted, false, JSON.stringify(after.compaction.lastManual));
      }

      await handle.cancel();
      assert.equal(totalRejected(simulator.stats()), 0);
      const rows = await stack.store.list(handle.workflowId);
      const seqs = rows.map((row) => row.seq);
      assert.equal(new Set(seqs).size, seqs.length, 'no seq stored twice across runs');
      assert.equal(rows.filter((row) => row.message.role === 'user' && row.meta.kind !== 'memory' && !row.message.content?.startsWith('[agentd summary')).length, 2);
    });
  });
});
