/**
 * A step as telemetry sees it: its trace ids (handed to its activities), when it began, the
 * compactions it ran, its model call's bill and its tool results, and at its end the one report the
 * worker writes the step's metrics and span from (DESIGN §8 "Metrics", "Traces"). Times are the
 * workflow's clock.
 */
import { proxySinks, workflowInfo } from '@temporalio/workflow';
import type { CallSpend } from '../policy';
import type { NoticeLog } from './compactionRecord';
import { stepTraceOf, type AgentdSinks, type CompactionSpanData, type StepSpanData, type StepTrace } from '../telemetry/stepTrace';

const { agentdTelemetry } = proxySinks<AgentdSinks>();

export class StepTelemetry {
  /** The step in progress's trace; undefined before the first step. */
  trace?: StepTrace;
  private startedAt = 0;
  private compactions: CompactionSpanData[] = [];
  private toolCalls = 0;
  private interrupted = false;
  private agentCall?: CallSpend;
  private toolResults: StepSpanData['toolResults'] = [];

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
    this.agentCall = undefined;
    this.toolResults = [];
  }

  noteReply(toolCalls: number, billed: CallSpend): void {
    this.toolCalls = toolCalls;
    this.agentCall = billed;
  }

  noteToolResult(tool: string, isError: boolean): void {
    this.toolResults.push({ tool, isError });
  }

  noteInterrupted(): void {
    this.interrupted = true;
  }

  /**
   * Runs compaction work of the step and notes a span for each notice it recorded: a failed summary
   * and the truncation that followed it are two, and a truncation after a second overflow is one.
   */
  async compaction<T>(log: NoticeLog, work: () => Promise<T>): Promise<T> {
    const startedAt = Date.now();
    const before = log.recorded;
    const outcome = await work();
    const endedAt = Date.now();
    for (const notice of log.since(before)) {
      this.compactions.push({
        strategy: notice.strategy,
        requestedBy: notice.reason,
        startedAt,
        endedAt,
        tokensBefore: notice.tokensBefore,
        tokensAfter: notice.tokensAfter,
        ...(notice.failed !== undefined ? { failed: notice.failed } : {}),
      });
    }
    return outcome;
  }

  end(position: { turn: number; step: number }): void {
    if (this.trace === undefined) return;
    agentdTelemetry.stepEnded({
      sessionId: this.sessionId,
      ...position,
      model: this.model,
      trace: this.trace,
      startedAt: this.startedAt,
      endedAt: Date.now(),
      toolCalls: this.toolCalls,
      interrupted: this.interrupted,
      compactions: this.compactions,
      ...(this.agentCall ? { agentCall: this.agentCall } : {}),
      toolResults: this.toolResults,
    });
  }
}
