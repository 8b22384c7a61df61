/**
 * The metrics a session emits from the workflow, served with Temporal's own on the worker's
 * Prometheus endpoint (AGENTD_METRICS_ADDRESS): those of events a step seldom has (summaries,
 * compactions, failures). The SDK drops a workflow's metrics while it replays, so each counts once.
 * What every step has (the step, its model call, its tool calls) the worker records from the step's
 * report instead (telemetry/stepMetrics.ts): a figure sent from here costs a sink call of its own.
 * Counters only grow; a dashboard takes their rate.
 */
import type { MetricMeter } from '@temporalio/common';
import { inWorkflowContext, metricMeter } from '@temporalio/workflow';
import type { CallSpend } from '../policy';
import { MODEL_CALL_COUNTERS } from '../telemetry/stepMetrics';

/**
 * The workflow's meter. The parts that record (the compaction record, the budget) are also driven
 * on their own by tests, outside any workflow, where there is nothing to emit to.
 */
function meter(): MetricMeter | undefined {
  return inWorkflowContext() ? metricMeter : undefined;
}

/** Billed summary calls, under the names and labels telemetry/stepMetrics.ts gives the agent's own. */
export function countSummaryCalls(model: string, spend: CallSpend): void {
  const workflowMeter = meter();
  if (!workflowMeter) return;
  for (const counter of MODEL_CALL_COUNTERS) {
    workflowMeter.createCounter(counter.name, counter.unit, counter.description).add(counter.of(spend), { model, role: 'summary' });
  }
}

export function countCompaction(strategy: string, requestedBy: string): void {
  meter()?.createCounter('agentd_compactions', 'compactions', 'compactions carried out, by strategy and what asked for them').add(1, { strategy, requested_by: requestedBy });
}

export function countCompactionFailure(breakerOpened: boolean): void {
  meter()?.createCounter('agentd_compaction_failures', 'failures', 'compactions that failed and changed nothing').add(1);
  if (breakerOpened) meter()?.createCounter('agentd_breaker_opened', 'openings', "times a session's compaction breaker opened").add(1);
}
