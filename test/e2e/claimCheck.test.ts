/**
 * Claim-check: message bodies live in the transcript store, the workflow history holds only seqs
 * and numbers, so history grows by a small constant per step however big the tool outputs are.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { historyBytes } from '../helpers/history';
import { suiteStack } from '../helpers/suiteStack';

const OUTPUT_BYTES = 100_000;
const MAX_HISTORY_BYTES_PER_STEP = 4096;

describe('claim-check', () => {
  const stack = suiteStack();

  it('keeps 100 KB tool outputs and a planted marker out of workflow history', async () => {
    const marker = `MARKER-${randomBytes(8).toString('hex')}`;
    const simulator = { marker, outputBytes: { min: OUTPUT_BYTES, max: OUTPUT_BYTES }, contextWindow: 1_000_000 };
    await stack.withWorker(simulator, async () => {
      const handle = await stack.sessions.start({
        task: 'produce big outputs [sim steps=16]',
        model: 'agentd-sim',
        contextWindow: 1_000_000,
      });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');

      const rows = await stack.store.list(handle.workflowId);
      const bigOutputs = rows.filter((row) => row.message.role === 'tool' && row.chars >= OUTPUT_BYTES);
      assert.equal(bigOutputs.length, 4, 'one 100 KB command output every fourth step');
      assert.ok(
        bigOutputs.every((row) => row.message.content?.includes(marker)),
        'the marker is in the stored tool outputs',
      );

      const history = await historyBytes(stack.client, handle.workflowId);
      assert.equal(history.includes(marker), false, 'the marker is nowhere in the workflow history');
      const perStep = history.length / result.steps;
      console.log(
        `claim-check: ${result.steps} steps, ${bigOutputs.length} outputs of ${OUTPUT_BYTES} B, ` +
          `history ${history.length} B = ${perStep.toFixed(0)} B per step`,
      );
      assert.ok(perStep < MAX_HISTORY_BYTES_PER_STEP, `history per step ${perStep.toFixed(0)} B ≥ ${MAX_HISTORY_BYTES_PER_STEP} B`);
    });
  });
});
