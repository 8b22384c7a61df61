/**
 * OpenTelemetry traces of a worker (DESIGN §8 "Traces"): one span per step, with a child for its
 * model call, each tool call, each summary call and each compaction, named and attributed after the
 * GenAI semantic conventions. Activities open their spans under the step's ids (`stepTrace.ts`);
 * the step span itself is written when the workflow's sink reports the step's end, with the ids the
 * activities already used. Off unless an exporter is configured: tracing costs nothing then.
 */
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  RandomIdGenerator,
  SimpleSpanProcessor,
  type IdGenerator,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { StepSpanData, StepTrace } from './stepTrace';

export interface Tracing {
  /** Runs `work` in a span under the step's span (a root span without one); failures mark it and go on up. */
  inSpan<T>(name: string, parent: StepTrace | undefined, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T>;
  /** Writes the step's span and its compactions' spans, from what the workflow reported. */
  stepEnded(step: StepSpanData): void;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Gives the next span the ids it is told to, and every other span random ones. */
class StepIds implements IdGenerator {
  forced?: StepTrace;
  private readonly random = new RandomIdGenerator();

  generateTraceId(): string {
    return this.forced?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.forced?.spanId ?? this.random.generateSpanId();
  }
}

/** `batch` for a real exporter (spans leave in the background); a test's in-memory exporter wants each span at once. */
export function createTracing(exporter: SpanExporter, options: { batch: boolean } = { batch: true }): Tracing {
  const ids = new StepIds();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agentd-worker' }),
    idGenerator: ids,
    spanProcessors: [options.batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('agentd');

  function under(parent: StepTrace | undefined): Context {
    if (parent === undefined) return ROOT_CONTEXT;
    return trace.setSpanContext(ROOT_CONTEXT, { traceId: parent.traceId, spanId: parent.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  }

  return {
    async inSpan(name, parent, attributes, work) {
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, under(parent));
      try {
        return await context.with(trace.setSpan(context.active(), span), () => work(span));
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    },

    stepEnded(step) {
      // Only this span takes the step's ids; startSpan asks for them at once, before anything else can.
      ids.forced = step.trace;
      const span = tracer.startSpan(
        `invoke_agent agentd step ${step.step}`,
        {
          root: true,
          kind: SpanKind.INTERNAL,
          startTime: step.startedAt,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': 'agentd',
            'gen_ai.conversation.id': step.sessionId,
            'gen_ai.request.model': step.model,
            'agentd.session.id': step.sessionId,
            'agentd.turn': step.turn,
            'agentd.step': step.step,
            'agentd.tool_calls': step.toolCalls,
            'agentd.interrupted': step.interrupted,
          },
        },
        ROOT_CONTEXT,
      );
      ids.forced = undefined;
      for (const compaction of step.compactions) {
        const child = tracer.startSpan(
          `agentd.compaction ${compaction.strategy}`,
          {
            kind: SpanKind.INTERNAL,
            startTime: compaction.startedAt,
            attributes: {
              'agentd.compaction.strategy': compaction.strategy,
              'agentd.compaction.requested_by': compaction.requestedBy,
              'agentd.compaction.tokens_before': compaction.tokensBefore,
              'agentd.compaction.tokens_after': compaction.tokensAfter,
            },
          },
          trace.setSpan(ROOT_CONTEXT, span),
        );
        if (compaction.failed !== undefined) child.setStatus({ code: SpanStatusCode.ERROR, message: compaction.failed });
        child.end(compaction.endedAt);
      }
      span.end(step.endedAt);
    },

    shutdown: () => provider.shutdown(),
  };
}

/**
 * Tracing as the standard OpenTelemetry variables ask: an OTLP/HTTP exporter when
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set (the exporter reads them,
 * and OTEL_EXPORTER_OTLP_HEADERS, itself), spans on stdout with OTEL_TRACES_EXPORTER=console, none
 * otherwise (or with OTEL_TRACES_EXPORTER=none).
 */
export function tracingFromEnv(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const chosen = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (chosen === 'none') return undefined;
  if (chosen === 'console') return createTracing(new ConsoleSpanExporter());
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) return createTracing(new OTLPTraceExporter());
  return undefined;
}
