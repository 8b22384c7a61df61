/**
 * agentd's metrics of its sessions, served with Temporal's own on the worker's Prometheus endpoint
 * (AGENTD_METRICS_ADDRESS). Emitted from the workflow, where every figure is already known: the
 * SDK drops a workflow's metrics while it replays, so a step counts once however often its
 * history is replayed. Counters only grow; a dashboard takes their rate.
 */
import type { MetricMeter } from '@temporalio/common';
import { inWorkflowContext, metricMeter } from '@temporalio/workflow';
import type { CallSpend } from '../policy';

/** Cost is counted in millionths of a dollar: Temporal's counters hold whole numbers. */
const MICRO = 1_000_000;

/**
 * The workflow's meter. The parts that record (the compaction record, the budget) are also driven
 * on their own by tests, outside any workflow, where there is nothing to emit to.
 */
function meter(): MetricMeter | undefined {
  return inWorkflowContext() ? metricMeter : undefined;
}

export function countStep(model: string): void {
  meter()?.createCounter('agentd_steps', 'steps', 'steps of agent sessions: one model call and its tool calls each').add(1, { model });
}

/** What a step took, by the workflow's clock: its model call, tool calls and what was stored. */
export function recordStepLatency(model: string, ms: number): void {
  meter()?.createHistogram('agentd_step_latency', 'int', 'ms', 'wall time of a step, model call and tools included').record(Math.max(0, ms), { model });
}

/** Billed model calls: the agent's own (`agent`) or compaction summaries (`summary`). */
export function countModelCalls(role: 'agent' | 'summary', model: string, spend: CallSpend): void {
  const workflowMeter = meter();
  if (!workflowMeter) return;
  const tags = { model, role };
  workflowMeter.createCounter('agentd_model_calls', 'calls', 'model calls billed').add(spend.calls, tags);
  workflowMeter.createCounter('agentd_prompt_tokens', 'tokens', 'prompt tokens billed, cached ones included').add(spend.promptTokens, tags);
  workflowMeter.createCounter('agentd_cached_prompt_tokens', 'tokens', 'prompt tokens the endpoint served from its cache').add(spend.cachedTokens, tags);
  workflowMeter.createCounter('agentd_completion_tokens', 'tokens', 'completion tokens billed').add(spend.completionTokens, tags);
  workflowMeter.createCounter('agentd_cost_microusd', 'microusd', 'what the calls cost, in millionths of a US dollar').add(Math.round(spend.costUsd * MICRO), tags);
}

export function countToolCall(tool: string, isError: boolean): void {
  meter()?.createCounter('agentd_tool_calls', 'calls', 'tool calls with a result, by tool and whether it was an error').add(1, { tool, error: isError });
}

export function countCompaction(strategy: string, requestedBy: string): void {
  meter()?.createCounter('agentd_compactions', 'compactions', 'compactions carried out, by strategy and what asked for them').add(1, { strategy, requested_by: requestedBy });
}

export function countCompactionFailure(breakerOpened: boolean): void {
  meter()?.createCounter('agentd_compaction_failures', 'failures', 'compactions that failed and changed nothing').add(1);
  if (breakerOpened) meter()?.createCounter('agentd_breaker_opened', 'openings', "times a session's compaction breaker opened").add(1);
}
