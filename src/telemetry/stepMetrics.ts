/**
 * agentd's per-step metrics, recorded on the worker's main thread from the step's sink report
 * (DESIGN §8 "Metrics"). The workflow's own meter would cost a sink call per figure, eight a step,
 * each with its tags worked out in the sandbox; here it is one report a step and counters made
 * once. Sinks are not called on replay, so a step counts once.
 * The series are those the workflow's meter would write: same names, and the namespace, task queue
 * and workflow type as labels.
 */
import type { MetricMeter } from '@temporalio/common';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { CallSpend } from '../policy/spend';
import type { StepSpanData } from './stepTrace';

/** The counters of billed model calls, labelled by `role` (`agent`, `summary`), and what each counts of a call's bill. */
export const MODEL_CALL_COUNTERS = [
  { name: 'agentd_model_calls', unit: 'calls', description: 'model calls billed', of: (spend: CallSpend) => spend.calls },
  { name: 'agentd_prompt_tokens', unit: 'tokens', description: 'prompt tokens billed, cached ones included', of: (spend: CallSpend) => spend.promptTokens },
  { name: 'agentd_cached_prompt_tokens', unit: 'tokens', description: 'prompt tokens the endpoint served from its cache', of: (spend: CallSpend) => spend.cachedTokens },
  { name: 'agentd_completion_tokens', unit: 'tokens', description: 'completion tokens billed', of: (spend: CallSpend) => spend.completionTokens },
  // In millionths of a dollar: Temporal's counters hold whole numbers.
  { name: 'agentd_cost_microusd', unit: 'microusd', description: 'what the calls cost, in millionths of a US dollar', of: (spend: CallSpend) => Math.round(spend.costUsd * 1_000_000) },
] as const;

export function stepMetrics(meter: MetricMeter): (info: WorkflowInfo, step: StepSpanData) => void {
  const steps = meter.createCounter('agentd_steps', 'steps', 'steps of agent sessions: one model call and its tool calls each');
  const latency = meter.createHistogram('agentd_step_latency', 'int', 'ms', 'wall time of a step, model call and tools included');
  const modelCalls = MODEL_CALL_COUNTERS.map((counter) => ({ counter: meter.createCounter(counter.name, counter.unit, counter.description), of: counter.of }));
  const toolCalls = meter.createCounter('agentd_tool_calls', 'calls', 'tool calls with a result, by tool and whether it was an error');
  return (info, step) => {
    const session = { namespace: info.namespace, taskQueue: info.taskQueue, workflowType: info.workflowType };
    const byModel = { ...session, model: step.model };
    steps.add(1, byModel);
    latency.record(Math.max(0, step.endedAt - step.startedAt), byModel);
    const call = step.agentCall;
    if (call) for (const { counter, of } of modelCalls) counter.add(of(call), { ...byModel, role: 'agent' });
    for (const result of step.toolResults) toolCalls.add(1, { ...session, tool: result.tool, error: result.isError });
  };
}
