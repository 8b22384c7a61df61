/**
 * The worker's side of the workflow's telemetry sink: a step's end records its metrics and, when
 * tracing is on, becomes its span.
 */
import type { MetricMeter } from '@temporalio/common';
import type { InjectedSinks } from '@temporalio/worker';
import { stepMetrics } from './stepMetrics';
import type { AgentdSinks } from './stepTrace';
import type { Tracing } from './tracing';

/** Registered whatever the tracing: a workflow calling a sink the worker lacks would log an error at every step. */
export function telemetrySinks(meter: MetricMeter, tracing: Tracing | undefined): InjectedSinks<AgentdSinks> {
  const recordMetrics = stepMetrics(meter);
  return {
    agentdTelemetry: {
      stepEnded: {
        fn: (info, step) => {
          recordMetrics(info, step);
          tracing?.stepEnded(step);
        },
        callDuringReplay: false,
      },
    },
  };
}
