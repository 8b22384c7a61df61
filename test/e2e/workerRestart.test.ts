/** Durability: a worker process killed mid-session is replaced and the session finishes intact. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

describe('worker restart', () => {
  const stack = suiteStack();

  it('finishes a session whose worker was killed with SIGKILL mid-run', async () => {
    const simulator = await startSimulator({ latencyMs: 100 });
    const env = {
      TEMPORAL_ADDRESS: stack.temporal.address,
      AGENTD_STORE: stack.storeFile,
      AGENTD_WORKSPACES: stack.workspaceRoot,
      OPENAI_BASE_URL: simulator.baseURL,
    };
    const workerScript = entryPoint('worker');
    try {
      const first = spawnNode(workerScript, [], env);
      const firstDone = finished(first);
      const handle = await stack.sessions.start({ task: 'survive a crash [sim steps=30]', model: 'agentd-sim' });
      const before = await eventually(async () => {
        const state = await stack.sessions.state(handle.workflowId);
        return state.step >= 8 ? state : undefined;
      }, 'step 8');
      first.kill('SIGKILL');
      assert.equal((await firstDone).code, null, 'the first worker died of the signal');

      const second = spawnNode(workerScript, [], env);
      const secondDone = finished(second);
      try {
        const result = await stack.sessions.result(handle.workflowId);
        assert.equal(result.outcome, 'finished');
        assert.ok(result.steps > before.step);
        assert.equal(result.steps, 31);
      } finally {
        second.kill('SIGTERM');
        await secondDone;
      }

      const rows = await stack.store.list(handle.workflowId);
      assert.deepEqual(
        rows.map((row) => row.seq),
        rows.map((_, index) => index),
        'seqs are contiguous: nothing lost, nothing stored twice',
      );
      assert.equal(totalRejected(simulator.stats()), 0, 'no request the strict endpoint refused');
    } finally {
      await simulator.stop();
    }
  });
});
