/**
 * OpenTelemetry traces (DESIGN §8 "Traces"): a session with tool calls and compactions, run by a
 * worker whose tracing writes to an in-process exporter. Every step is one trace: a step span with a
 * child for its model call, each tool call, each summary call and each compaction, carrying the
 * GenAI attributes, and the token figures on the model spans add up to the session's own ledger.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createModelClient } from '../../src/model/client';
import type { SessionResult } from '../../src/session/state';
import { startSimulator } from '../../src/simulator/server';
import { stepTraceOf } from '../../src/telemetry/stepTrace';
import { createTracing } from '../../src/telemetry/tracing';
import { suiteStack } from '../helpers/suiteStack';

/** An OpenTelemetry time ([seconds, nanoseconds]) in ms. */
function ms([seconds, nanos]: readonly [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}

function sum(spans: readonly ReadableSpan[], attribute: string): number {
  return spans.reduce((total, span) => total + Number(span.attributes[attribute] ?? 0), 0);
}

describe('OpenTelemetry traces', () => {
  const stack = suiteStack();

  it('writes one trace per step: the step span, and under it its model call, tool calls, summaries and compactions', { timeout: 120_000 }, async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createTracing(exporter, { batch: false });
    const simulator = await startSimulator();
    let result: SessionResult;
    let firstRunId: string;
    try {
      result = await stack.runWorker({ model: createModelClient({ baseURL: simulator.baseURL }), tracing }, async () => {
        const handle = await stack.sessions.start(
          { task: 'traced work [sim steps=14 output=4000-8000 pace=busy]', model: 'agentd-sim', contextWindow: 16_384, compaction: { reserveTokens: 4096 } },
          { sessionId: 'traced-1' },
        );
        // The first run's id: a session this short never continues as new.
        firstRunId = (await handle.describe()).runId;
        return stack.sessions.result('traced-1');
      });
    } finally {
      await simulator.stop();
    }
    // Read before the shutdown, which empties an in-memory exporter.
    const spans = exporter.getFinishedSpans();
    await tracing.shutdown();
    const state = result.finalState!;
    assert.ok(state.compaction.compactions > 0, 'the session compacted');

    const rows = await stack.store.list('traced-1');
    const replies = rows.filter((row) => row.message.role === 'assistant');
    assert.equal(replies.length, result.steps);
    for (let step = 1; step <= result.steps; step += 1) {
      const ids = stepTraceOf(firstRunId!, step);
      const stepSpan = spans.find((span) => span.spanContext().spanId === ids.spanId);
      assert.ok(stepSpan, `step ${step} has its span`);
      assert.equal(stepSpan.name, `invoke_agent agentd step ${step}`);
      assert.equal(stepSpan.spanContext().traceId, ids.traceId);
      assert.equal(stepSpan.parentSpanContext, undefined, 'the step span is the root of its trace');
      assert.equal(stepSpan.attributes['gen_ai.conversation.id'], 'traced-1');
      const children = spans.filter((span) => span.parentSpanContext?.spanId === ids.spanId);
      const chats = children.filter((span) => span.name === 'chat agentd-sim' && span.attributes['agentd.role'] === 'agent');
      assert.equal(chats.length, 1, `step ${step}: one model call`);
      const reply = replies[step - 1]!.message;
      const declared = reply.role === 'assistant' ? (reply.tool_calls ?? []).map((call) => `execute_tool ${call.function.name}`) : [];
      assert.deepEqual(children.filter((span) => span.name.startsWith('execute_tool ')).map((span) => span.name), declared, `step ${step}: a span per tool call`);
      for (const child of children) {
        assert.equal(child.spanContext().traceId, ids.traceId);
        assert.ok(ms(child.startTime) >= ms(stepSpan.startTime) - 50, `${child.name} starts inside step ${step}`);
      }
    }

    // Each compaction the state recorded is a span under the step that ran it.
    const compactionSpans = spans.filter((span) => span.name.startsWith('agentd.compaction '));
    assert.deepEqual(
      compactionSpans.map((span) => `${span.attributes['agentd.compaction.strategy']}@${spans.find((parent) => parent.spanContext().spanId === span.parentSpanContext?.spanId)?.attributes['agentd.step']}`).sort(),
      state.compaction.notices.filter((notice) => notice.failed === undefined).map((notice) => `${notice.strategy}@${notice.step}`).sort(),
    );

    // The GenAI attributes add up to the session's spend ledger.
    const agentChats = spans.filter((span) => span.attributes['agentd.role'] === 'agent');
    const summaryChats = spans.filter((span) => span.attributes['agentd.role'] === 'summary');
    assert.equal(sum(agentChats, 'gen_ai.usage.input_tokens'), state.spend.agent.promptTokens);
    assert.equal(sum(agentChats, 'gen_ai.usage.output_tokens'), state.spend.agent.completionTokens);
    assert.equal(sum(agentChats, 'gen_ai.usage.cache_read.input_tokens'), state.spend.agent.cachedTokens);
    assert.equal(sum(summaryChats, 'gen_ai.usage.input_tokens'), state.spend.summary.promptTokens);
    for (const chat of agentChats) {
      assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(chat.attributes['gen_ai.request.model'], 'agentd-sim');
      assert.equal(chat.attributes['gen_ai.provider.name'], 'openai');
    }
    console.log(`traces: ${result.steps} steps, ${spans.length} spans (${agentChats.length} model calls, ${summaryChats.length} summary calls, ${compactionSpans.length} compactions)`);
  });
});
