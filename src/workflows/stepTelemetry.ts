/**
 * A step as telemetry sees it: its trace ids (handed to its activities), when it began, the
 * compactions it ran, and at its end the step latency metric and the report the worker's tracing
 * writes the step span from (DESIGN §8 "Traces"). Times are the workflow's clock.
 */
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import type { CompactionNotice } from '../session/state';
import { stepTraceOf, type AgentdSinks, type CompactionSpanData, type StepTrace } from '../telemetry/stepTrace';
import { recordStepLatency } from './sessionMetrics';

const { agentdTelemetry } = proxySinks<AgentdSinks>();

export class StepTelemetry {
  /** The step in progress's trace; undefined before the first step. */
  trace?: StepTrace;
  private startedAt = 0;
  private compactions: CompactionSpanData[] = [];
  private toolCalls = 0;
  private interrupted = false;

  constructor(
    private readonly sessionId: string,
    private readonly model: string,
  ) {}

  begin(step: number): void {
    this.trace = stepTraceOf(workflowInfo().firstExecutionRunId, step);
    this.startedAt = Date.now();
    this.compactions = [];
    this.toolCalls = 0;
    this.interrupted = false;
  }

  noteReply(toolCalls: number): void {
    this.toolCalls = toolCalls;
  }

  noteInterrupted(): void {
    this.interrupted = true;
  }

  /** Runs one compaction of the step, noting its span when it did something. */
  async compaction<T extends { notice?: CompactionNotice }>(requestedBy: string, work: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    const outcome = await work();
    const notice = outcome.notice;
    if (notice) {
      this.compactions.push({
        strategy: notice.strategy,
        requestedBy,
        startedAt,
        endedAt: Date.now(),
        tokensBefore: notice.tokensBefore,
        tokensAfter: notice.tokensAfter,
        ...(notice.failed !== undefined ? { failed: notice.failed } : {}),
      });
    }
    return outcome;
  }

  end(position: { turn: number; step: number }): void {
    const endedAt = Date.now();
    recordStepLatency(this.model, endedAt - this.startedAt);
    if (this.trace === undefined) return;
    agentdTelemetry.stepEnded({
      sessionId: this.sessionId,
      ...position,
      model: this.model,
      trace: this.trace,
      startedAt: this.startedAt,
      endedAt,
      toolCalls: this.toolCalls,
      interrupted: this.interrupted,
      compactions: this.compactions,
    });
  }
}
