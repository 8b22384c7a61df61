/** The worker's side of the workflow's telemetry sink: a step's end becomes its span, when tracing is on. */
import type { InjectedSinks } from '@temporalio/worker';
import type { AgentdSinks } from './stepTrace';
import type { Tracing } from './tracing';

/** Registered whatever the tracing: a workflow calling a sink the worker lacks would log an error at every step. */
export function telemetrySinks(tracing: Tracing | undefined): InjectedSinks<AgentdSinks> {
  return {
    agentdTelemetry: {
      stepEnded: { fn: (_info, step) => tracing?.stepEnded(step), callDuringReplay: false },
    },
  };
}
