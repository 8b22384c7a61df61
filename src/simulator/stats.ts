/** Counters of what the simulator was asked and what it refused, for tests and benchmarks. */
import type { ChatRole } from '../model/messages';

export const RejectionReason = {
  contextLengthExceeded: 'context_length_exceeded',
  orphanToolResult: 'orphan_tool_result',
  unansweredToolCall: 'unanswered_tool_call',
  badRequest: 'bad_request',
  /** A fault from the fault plan (status, hang or malformed body). */
  injected: 'injected',
} as const;
export type RejectionReason = (typeof RejectionReason)[keyof typeof RejectionReason];

/** One answered request, enough to chart prompt growth over a session. */
export interface RequestSample {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens reported as served from the (simulated) prompt cache. */
  readonly cachedTokens: number;
  readonly messageCount: number;
  readonly lastRole: ChatRole;
  /** A compaction's summarization request rather than an agent step (as `ObservedRequest.summarizing`). */
  readonly summarizing: boolean;
}

export interface SimulatorStats {
  /** Every chat completion request received, rejected ones included. */
  readonly requests: number;
  readonly rejected: Readonly<Record<RejectionReason, number>>;
  /** Over answered requests only: a rejected prompt was never "used". */
  readonly maxPromptTokens: number;
  readonly totalPromptTokens: number;
  readonly totalCompletionTokens: number;
  readonly totalCachedTokens: number;
  /** Summarization requests answered with a 200 (whatever the summarizer wrote), also counted in the totals above. */
  readonly summaryRequests: number;
  /** Summarization requests the `fail` summarizer answered with an error (also in `rejected.injected`). */
  readonly summaryFailures: number;
  /** Tokens of the summarization requests (also in the totals above). */
  readonly summaryPromptTokens: number;
  readonly summaryCompletionTokens: number;
  /** Cached prompt tokens of the summarization requests (also in `totalCachedTokens`). */
  readonly summaryCachedTokens: number;
  /** The last SAMPLE_LIMIT answered requests, oldest first. */
  readonly recent: readonly RequestSample[];
}

/** Bounded so a long benchmark cannot grow the simulator's memory without limit. */
const SAMPLE_LIMIT = 1000;

function zeroRejections(): Record<RejectionReason, number> {
  return {
    context_length_exceeded: 0,
    orphan_tool_result: 0,
    unanswered_tool_call: 0,
    bad_request: 0,
    injected: 0,
  };
}

export class StatsRecorder {
  private requests = 0;
  private rejected = zeroRejections();
  private maxPromptTokens = 0;
  private totalPromptTokens = 0;
  private totalCompletionTokens = 0;
  private totalCachedTokens = 0;
  private summaryRequests = 0;
  private summaryFailures = 0;
  private summaryPromptTokens = 0;
  private summaryCompletionTokens = 0;
  private summaryCachedTokens = 0;
  private samples: RequestSample[] = [];

  request(): void {
    this.requests += 1;
  }

  reject(reason: RejectionReason): void {
    this.rejected[reason] += 1;
  }

  answered(sample: RequestSample): void {
    this.maxPromptTokens = Math.max(this.maxPromptTokens, sample.promptTokens);
    this.totalPromptTokens += sample.promptTokens;
    this.totalCompletionTokens += sample.completionTokens;
    this.totalCachedTokens += sample.cachedTokens;
    this.samples.push(sample);
    if (this.samples.length > SAMPLE_LIMIT) this.samples.splice(0, this.samples.length - SAMPLE_LIMIT);
  }

  /** Call after `answered` for a request that asked for a summary. */
  summaryAnswered(sample: Pick<RequestSample, 'promptTokens' | 'completionTokens' | 'cachedTokens'>): void {
    this.summaryRequests += 1;
    this.summaryPromptTokens += sample.promptTokens;
    this.summaryCompletionTokens += sample.completionTokens;
    this.summaryCachedTokens += sample.cachedTokens;
  }

  /** Call after `reject` for a summarization request the summarizer failed on purpose. */
  summaryFailed(): void {
    this.summaryFailures += 1;
  }

  reset(): void {
    this.requests = 0;
    this.rejected = zeroRejections();
    this.maxPromptTokens = 0;
    this.totalPromptTokens = 0;
    this.totalCompletionTokens = 0;
    this.totalCachedTokens = 0;
    this.summaryRequests = 0;
    this.summaryFailures = 0;
    this.summaryPromptTokens = 0;
    this.summaryCompletionTokens = 0;
    this.summaryCachedTokens = 0;
    this.samples = [];
  }

  /** A copy, so callers cannot change the recorder through it. */
  snapshot(): SimulatorStats {
    return {
      requests: this.requests,
      rejected: { ...this.rejected },
      maxPromptTokens: this.maxPromptTokens,
      totalPromptTokens: this.totalPromptTokens,
      totalCompletionTokens: this.totalCompletionTokens,
      totalCachedTokens: this.totalCachedTokens,
      summaryRequests: this.summaryRequests,
      summaryFailures: this.summaryFailures,
      summaryPromptTokens: this.summaryPromptTokens,
      summaryCompletionTokens: this.summaryCompletionTokens,
      summaryCachedTokens: this.summaryCachedTokens,
      recent: this.samples.map((sample) => ({ ...sample })),
    };
  }
}

/** Requests refused for any reason. */
export function totalRejected(stats: SimulatorStats): number {
  return Object.values(stats.rejected).reduce((sum, count) => sum + count, 0);
}
