/**
 * Where a step's spans hang (DESIGN §8 "Traces"): the trace and span ids of a step, worked out from
 * the session's first run and the step alone. The workflow, every activity of the step and every
 * replay agree on them without sending anything, and a step span written after the fact (the
 * workflow's sink) is the parent its activities' spans already named. Pure: the workflow imports it.
 */
import type { Sinks } from '@temporalio/workflow';
import { fnv1aHex } from '../policy/idHash';
import type { CallSpend } from '../policy/spend';

export interface StepTrace {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
}

/** One trace per step: a 2,000-step session is 2,000 small traces, not one a backend cannot show. */
export function stepTraceOf(firstRunId: string, step: number): StepTrace {
  const key = `${firstRunId}/${step}`;
  return { traceId: hex(key, 4), spanId: hex(`${key}/step`, 2) };
}

/** What the workflow's sink reports when a step ends: the step span, the compactions under it, and the step's metrics. */
export interface StepSpanData {
  sessionId: string;
  turn: number;
  step: number;
  model: string;
  trace: StepTrace;
  /** Workflow time, ms since the epoch. */
  startedAt: number;
  endedAt: number;
  toolCalls: number;
  interrupted: boolean;
  compactions: CompactionSpanData[];
  /** What the step's model call was billed; absent when no reply came (an interrupt). */
  agentCall?: CallSpend;
  /** The step's tool calls that got a result. */
  toolResults: Array<{ tool: string; isError: boolean }>;
}

export interface CompactionSpanData {
  strategy: string;
  requestedBy: string;
  startedAt: number;
  endedAt: number;
  tokensBefore: number;
  tokensAfter: number;
  failed?: string;
}

/** `words` × 32 bits of hash over `text`, each word seeded apart; never all zeros (an invalid id). */
function hex(text: string, words: number): string {
  let out = '';
  for (let word = 1; word <= words; word += 1) out += fnv1aHex(text, word);
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

/** The workflow's sink: the worker's tracing writes the step span from it. Sinks leave no history and are not called on replay. */
export interface AgentdSinks extends Sinks {
  agentdTelemetry: {
    stepEnded(step: StepSpanData): void;
  };
}
