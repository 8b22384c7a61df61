/**
 * The spans of the activities (DESIGN §8 "Traces"), under the step span whose ids the workflow
 * handed over; with the GenAI semantic conventions' names and attributes. Without tracing, only the work.
 */
import type OpenAI from 'openai';
import type { StepTrace } from '../telemetry/stepTrace';
import type { ActivityDeps } from './deps';
import { usageOf } from './usage';

type Completion = OpenAI.Chat.Completions.ChatCompletion;

/** One request to the model: `chat <model>`, with what it cost once it is answered. */
export function chatSpan(
  deps: Pick<ActivityDeps, 'tracing'>,
  request: { sessionId: string; model: string; trace?: StepTrace | undefined; role: 'agent' | 'summary'; maxTokens?: number | undefined },
  work: () => Promise<Completion>,
): Promise<Completion> {
  if (deps.tracing === undefined) return work();
  const attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': request.model,
    'gen_ai.conversation.id': request.sessionId,
    'agentd.role': request.role,
    ...(request.maxTokens !== undefined ? { 'gen_ai.request.max_tokens': request.maxTokens } : {}),
  };
  return deps.tracing.inSpan(`chat ${request.model}`, request.trace, attributes, async (span) => {
    const completion = await work();
    const usage = usageOf(completion);
    span.setAttributes({
      'gen_ai.response.model': completion.model,
      'gen_ai.response.id': completion.id,
      'gen_ai.response.finish_reasons': completion.choices.map((choice) => choice.finish_reason ?? 'unknown'),
      'gen_ai.usage.input_tokens': usage.promptTokens,
      'gen_ai.usage.output_tokens': usage.completionTokens,
      ...(usage.cachedTokens !== undefined ? { 'gen_ai.usage.cache_read.input_tokens': usage.cachedTokens } : {}),
    });
    return completion;
  });
}

/** One tool call: `execute_tool <name>`, marked with whether its result is an error. */
export function toolSpan<T>(
  deps: Pick<ActivityDeps, 'tracing'>,
  call: { sessionId: string; name: string; id: string; seq: number; trace?: StepTrace | undefined },
  work: () => Promise<T>,
  isError: () => boolean,
): Promise<T> {
  if (deps.tracing === undefined) return work();
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.name,
    'gen_ai.tool.call.id': call.id,
    'gen_ai.conversation.id': call.sessionId,
    'agentd.seq': call.seq,
  };
  return deps.tracing.inSpan(`execute_tool ${call.name}`, call.trace, attributes, async (span) => {
    const result = await work();
    span.setAttribute('agentd.tool.is_error', isError());
    return result;
  });
}
