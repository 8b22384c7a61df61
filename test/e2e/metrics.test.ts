/**
 * The worker's Prometheus endpoint (AGENTD_METRICS_ADDRESS): scraped after a session with
 * compactions, agentd's counters agree with the session's own result, figure for figure, and
 * Temporal's metrics are served beside them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/devServer/freePort';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { eventually, startServerStack, type ServerStack } from '../../harness/stack';
import { fetchExposition, samplesOf, sumOf, type Sample } from '../../harness/prometheus';
import { startWorkerProcess, type WorkerProcess } from '../../harness/workerProcess';

/** The sum of an agentd metric (Temporal's prefix and a counter's suffix allowed) over the samples whose labels contain every one of `labels`. */
function total(all: readonly Sample[], metric: string, ...labels: string[]): number {
  return sumOf(all, new RegExp(`^(temporal_)?${metric}(_total)?$`), ...labels);
}

describe('the worker\'s metrics endpoint', () => {
  let stack: ServerStack;
  let simulator: RunningSimulator;
  let worker: WorkerProcess;
  let dir: string;
  let metricsUrl: string;
  before(async () => {
    stack = await startServerStack();
    simulator = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'agentd-metrics-'));
    const address = `127.0.0.1:${await freePort()}`;
    metricsUrl = `http://${address}/metrics`;
    worker = startWorkerProcess({
      temporalAddress: stack.temporal.address,
      storeFile: join(dir, 'transcripts.db'),
      workspaceRoot: join(dir, 'workspaces'),
      modelBaseURL: simulator.baseURL,
      extra: { AGENTD_METRICS_ADDRESS: address },
    });
  });
  after(async () => {
    await worker?.stop('SIGTERM');
    await simulator?.stop();
    await stack?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('counts steps, calls, tokens, cost, tool calls and compactions as the session does', { timeout: 180_000 }, async () => {
    await eventually(async () => ((await fetch(metricsUrl).catch(() => undefined))?.ok ? true : undefined), 'the metrics endpoint', 60_000);
    const handle = await stack.sessions.start({ task: 'tally the logs [sim steps=24 output=8000-8000]', model: 'agentd-sim', contextWindow: 32_768 });
    const result = await stack.sessions.result(handle.workflowId);
    const state = result.finalState!;
    assert.ok(state.compaction.compactions >= 1, `the session compacted (${state.compaction.compactions})`);

    const scraped = samplesOf(await fetchExposition(metricsUrl));
    const spend = result.spend!;
    const figures = {
      steps: total(scraped, 'agentd_steps'),
      agentCalls: total(scraped, 'agentd_model_calls', 'role="agent"'),
      promptTokens: total(scraped, 'agentd_prompt_tokens', 'role="agent"'),
      cachedTokens: total(scraped, 'agentd_cached_prompt_tokens', 'role="agent"'),
      completionTokens: total(scraped, 'agentd_completion_tokens', 'role="agent"'),
      summaryCalls: total(scraped, 'agentd_model_calls', 'role="summary"'),
      compactions: total(scraped, 'agentd_compactions'),
      toolCalls: total(scraped, 'agentd_tool_calls'),
      stepsTimed: total(scraped, 'agentd_step_latency_count'),
      costMicroUsd: total(scraped, 'agentd_cost_microusd', 'role="agent"'),
    };
    console.log(`scraped: ${JSON.stringify(figures)}; names: ${[...new Set(scraped.map((sample) => sample.name).filter((name) => name.includes('agentd')))].join(', ')}`);
    assert.equal(figures.steps, result.steps);
    assert.equal(figures.stepsTimed, result.steps, 'every step timed');
    assert.equal(figures.agentCalls, spend.agent.calls);
    assert.equal(figures.promptTokens, spend.agent.promptTokens);
    assert.equal(figures.cachedTokens, spend.agent.cachedTokens);
    assert.equal(figures.completionTokens, spend.agent.completionTokens);
    assert.equal(figures.summaryCalls, spend.summary.calls);
    assert.equal(figures.compactions, state.compaction.compactions);
    assert.equal(total(scraped, 'agentd_compactions', `strategy="${state.compaction.notices.at(-1)?.strategy}"`) > 0, true, 'by strategy');
    // One result per declared call; the last step's finish has one too.
    assert.equal(figures.toolCalls, result.steps);
    // Each call's cost is rounded to a millionth on its own.
    assert.ok(Math.abs(figures.costMicroUsd - spend.agent.costUsd * 1_000_000) <= spend.agent.calls, `${figures.costMicroUsd} µ$ against $${spend.agent.costUsd}`);
    assert.ok(
      scraped.some((sample) => sample.name.startsWith('temporal_') && !sample.name.includes('agentd')),
      "Temporal's own metrics are served too",
    );
  });
});
