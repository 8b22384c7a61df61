/** A 2,000-step autonomous session: many compactions and several runs, and it completes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { totalRejected } from '../../src/simulator/stats';
import { historyBytes } from '../helpers/history';
import { suiteStack } from '../helpers/suiteStack';

const STEPS = 2000;

describe('long session', () => {
  const stack = suiteStack();

  it(`completes ${STEPS} steps across several runs through continue-as-new`, async () => {
    await stack.withWorker({ contextWindow: 32_768 }, async (simulator) => {
      const started = Date.now();
      const handle = await stack.sessions.start({
        task: `overnight job [sim steps=${STEPS}]`,
        model: 'agentd-sim',
        contextWindow: 32_768,
        maxSteps: STEPS + 10,
        continueAsNew: { maxHistoryEvents: 5_000, maxHistoryBytes: 20 * 1024 * 1024 },
      });
      const result = await stack.sessions.result(handle.workflowId);
      const state = await stack.sessions.state(handle.workflowId);
      const lastRunHistory = await historyBytes(stack.client, handle.workflowId);
      const stats = simulator.stats();
      console.log(
        `long session: ${result.steps} steps in ${((Date.now() - started) / 1000).toFixed(0)} s, ${state.runs} runs, ` +
          `compactions ${JSON.stringify(state.compaction.byStrategy)}, last run's history ${lastRunHistory.length} B, ` +
          `max prompt ${stats.maxPromptTokens} tokens`,
      );
      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, STEPS + 1);
      assert.ok(state.runs >= 3, `runs: ${state.runs}`);
      assert.equal(totalRejected(stats), 0);
      assert.ok(stats.maxPromptTokens <= 32_768);
    });
  });
});
