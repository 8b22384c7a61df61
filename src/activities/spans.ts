/**
 * The model request and the tool call as the activities run them, each in its span (DESIGN §8
 * "Traces") under the step span whose ids the workflow handed over, named and attributed after the
 * GenAI semantic conventions. Without tracing, only the work.
 */
import type OpenAI from 'openai';
import type { StepTrace } from '../telemetry/stepTrace';
import type { ActivityDeps } from './deps';
import { withHeartbeat } from './heartbeat';
import { toModelFailure } from './modelFailure';
import { usageOf } from './usage';

type Completion = OpenAI.Chat.Completions.ChatCompletion;
type CompletionBody = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** Who asks the model, besides what the request body says. */
export interface ChatCaller {
  sessionId: string;
  trace?: StepTrace | undefined;
  role: 'agent' | 'summary';
}

/**
 * One request to the model, as every activity sends it: heartbeating while it waits, its failure
 * typed for the retry policy (`toModelFailure`), and its span, `chat <model>`, with what it cost.
 */
export function requestChat(deps: Pick<ActivityDeps, 'model' | 'tracing'>, caller: ChatCaller, body: CompletionBody): Promise<Completion> {
  const send = () =>
    withHeartbeat((signal) =>
      deps.model.chat.completions.create(body, { signal }).catch((error: unknown) => {
        throw toModelFailure(error);
      }),
    );
  if (deps.tracing === undefined) return send();
  const attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': body.model,
    'gen_ai.conversation.id': caller.sessionId,
    'agentd.role': caller.role,
    ...(typeof body.max_tokens === 'number' ? { 'gen_ai.request.max_tokens': body.max_tokens } : {}),
  };
  return deps.tracing.inSpan(`chat ${body.model}`, caller.trace, attributes, async (span) => {
    const completion = await send();
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
