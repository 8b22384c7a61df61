/**
 * Temporal's limits: on a dev server whose blob and history limits are lowered (256 KB per payload,
 * 4 MB of history), agentd carries multi-MB tool outputs, tens of MB in all, because bodies stay in
 * the transcript store. A naive foil that keeps its messages in workflow state cannot: the server
 * refuses its first multi-MB result (over gRPC's 4 MB message limit, so the attempt can only time
 * out), and with small outputs it terminates the run when history passes its size limit.
 */
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundle } from '@temporalio/worker';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatorOptions } from '../../src/simulator/options';
import { totalRejected } from '../../src/simulator/stats';
import type { SessionResult } from '../../src/session/state';
import { runFoil, type FoilSetup } from '../../harness/foil/runFoil';
import { startStackOn, type Stack } from '../../harness/stack';
import { startTestTemporal } from '../../harness/temporal';
import { pairingProblems, seqGaps } from '../../harness/transcriptChecks';

/** Server 1.29 names (common/dynamicconfig/constants.go): an eighth of the blob default (2 MiB), 1/12.5 of history's (50 MiB). */
const LIMITS = {
  'limit.blobSize.error': 262_144,
  'limit.blobSize.warn': 131_072,
  'limit.historySize.error': 4_194_304,
  'limit.historySize.warn': 2_097_152,
} as const;
const WINDOW = 2_000_000;
const OUTPUT_CAP_CHARS = 10_000_000;
/** Six run_command steps (every fourth), each printing 3–5 MB. */
const STEPS = 24;
const TASK = `carry huge outputs [sim steps=${STEPS}]`;
const SIMULATOR: SimulatorOptions = { outputBytes: { min: 3_000_000, max: 5_000_000 }, contextWindow: WINDOW };

/** A workload of modest outputs, each far under the blob limit, over many steps. */
const SMALL_OUTPUTS: SimulatorOptions = { outputBytes: { min: 16_000, max: 24_000 } };
const SMALL_TASK = 'carry small outputs [sim steps=120]';

const MB = 1024 * 1024;
/** node:test has no default timeout: a stuck run would hang instead of failing. */
const MINUTE = 60_000;
function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(2)} MB`;
}

describe("Temporal's limits", () => {
  let stack: Stack;
  let foilBundle: WorkflowBundle;
  before(async () => {
    stack = await startStackOn(await startTestTemporal({ dynamicConfig: LIMITS }));
    foilBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../harness/foil/workflows'), logger: new DefaultLogger('WARN') });
  });
  const foilSetup = (): FoilSetup => ({
    address: stack.temporal.address,
    client: stack.client,
    bundle: foilBundle,
    workspaceRoot: stack.workspaceRoot,
  });
  after(async () => {
    await stack?.stop();
  });

  it('agentd completes a session of multi-MB tool outputs, tens of MB in all, under 256 KB blob and 4 MB history limits', { timeout: 3 * MINUTE }, async () => {
    await stack.withWorker(SIMULATOR, async (simulator) => {
      const started = Date.now();
      const handle = await stack.sessions.start({
        task: TASK,
        model: 'agentd-sim',
        contextWindow: WINDOW,
        toolOutputCapChars: OUTPUT_CAP_CHARS,
      });
      const result: SessionResult = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');

      const rows = await stack.store.list(handle.workflowId);
      assert.deepEqual(seqGaps(rows), []);
      assert.deepEqual(pairingProblems(rows), []);
      assert.equal(totalRejected(simulator.stats()), 0);
      const outputs = rows.filter((row) => row.message.role === 'tool' && row.meta.kind !== 'view');
      const largest = Math.max(...outputs.map((row) => row.chars));
      const big = outputs.filter((row) => row.chars >= 3_000_000);
      const totalChars = rows.reduce((sum, row) => sum + row.chars, 0);
      const history = await handle.describe();
      const historySize = history.historySize ?? Number.NaN;

      assert.equal(big.length, 6, 'six outputs of 3–5 MB, each over ten times the blob limit');
      assert.ok(largest > 10 * LIMITS['limit.blobSize.error']);
      assert.ok(totalChars > 4 * LIMITS['limit.historySize.error'], `the session carried ${mb(totalChars)}`);
      assert.ok(historySize < LIMITS['limit.historySize.warn'], `history ${mb(historySize)} stays under the warn limit`);
      console.log(
        `agentd under lowered limits: ${result.steps} steps, largest tool output ${largest} chars (${mb(largest)}), ` +
          `${big.length} outputs ≥ 3 MB, ${rows.length} rows carrying ${totalChars} chars (${mb(totalChars)}) in all; ` +
          `history ${historySize} B in ${history.historyLength} events; ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    });
  });

  it('agentd completes the 120-step session of 16–24 KB outputs that the foil cannot', { timeout: 3 * MINUTE }, async () => {
    await stack.withWorker(SMALL_OUTPUTS, async (simulator) => {
      const handle = await stack.sessions.start({ task: SMALL_TASK, model: 'agentd-sim' });
      const result: SessionResult = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, 121);
      assert.equal(totalRejected(simulator.stats()), 0);
      const history = await handle.describe();
      const historySize = history.historySize ?? Number.NaN;
      assert.ok(historySize < LIMITS['limit.historySize.warn'], `history ${mb(historySize)} stays under the warn limit`);
      const rows = await stack.store.list(handle.workflowId);
      console.log(
        `agentd, 16–24 KB outputs: ${result.steps} steps, ${rows.length} rows carrying ${mb(rows.reduce((sum, row) => sum + row.chars, 0))}; ` +
          `history ${historySize} B in ${history.historyLength} events`,
      );
    });
  });

  it('the naive foil, on the same workload, is ended at its first multi-MB output', { timeout: 3 * MINUTE }, async () => {
    const run = await runFoil(foilSetup(), SIMULATOR, TASK, STEPS + 1, OUTPUT_CAP_CHARS);
    console.log(
      `naive foil, 3–5 MB outputs: ${run.status} at step ${run.step}; history ${run.historyBytes} B in ${run.historyEvents} events; ${run.why}`,
    );
    assert.ok(['FAILED', 'TERMINATED'].includes(run.status), `the foil ended ${run.status}: ${run.why}`);
    // Its first command output (step 3, 4.6 MB) is over gRPC's 4 MB message limit: the server
    // refuses the completion (ResourceExhausted), so the attempt can only time out.
    assert.equal(run.step, 3, 'it died on the step of its first big output');
    assert.match(run.why, /StartToClose|size|limit/i, 'what ended it was the result that could not be delivered');
  });

  it('the naive foil dies of quadratic history growth even with 16–24 KB outputs', { timeout: 3 * MINUTE }, async () => {
    // Each model call's input is the whole list so far: history grows with the square of the steps.
    const run = await runFoil(foilSetup(), SMALL_OUTPUTS, SMALL_TASK, 121, OUTPUT_CAP_CHARS);
    console.log(
      `naive foil, 16–24 KB outputs: ${run.status} at step ${run.step}; history ${run.historyBytes} B in ${run.historyEvents} events; ${run.why}`,
    );
    assert.ok(['FAILED', 'TERMINATED'].includes(run.status), `the foil ended ${run.status}: ${run.why}`);
    assert.ok(run.step < 121, 'it did not finish its 120 steps');
    assert.match(run.why, /size|limit/i, 'a size limit of the server ended it');
  });
});

