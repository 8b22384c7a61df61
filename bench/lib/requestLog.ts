/** Records what the simulator answered, request by request, through its `observe` hook. */
import type { ObservedRequest, RequestObserver } from '../../src/simulator/observer';

export interface LoggedRequest {
  readonly index: number;
  readonly promptTokens: number;
  readonly summarizing: boolean;
  readonly messages: number;
}

export class RequestLog {
  readonly requests: LoggedRequest[] = [];
  /** `inspect` sees each request's messages while they are at hand; only numbers are kept. */
  constructor(private readonly inspect?: RequestObserver) {}

  readonly observe: RequestObserver = (request: ObservedRequest) => {
    this.requests.push({ index: request.index, promptTokens: request.promptTokens, summarizing: request.summarizing, messages: request.messages.length });
    this.inspect?.(request);
  };

  /** Prompt tokens of the step requests (not the summaries), in order: one per answered model call. */
  stepTokens(): number[] {
    return this.requests.filter((request) => !request.summarizing).map((request) => request.promptTokens);
  }

  summaryCalls(): number {
    return this.requests.filter((request) => request.summarizing).length;
  }

  summaryTokens(): number {
    return this.requests.filter((request) => request.summarizing).reduce((sum, request) => sum + request.promptTokens, 0);
  }
}
