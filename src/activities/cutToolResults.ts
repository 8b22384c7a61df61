/**
 * The prune activity: replaces tool results (and large tool-call arguments) in the context by
 * head-and-tail views. The original stays in the store under its own seq; the view names it, so
 * `read_output` can page through it.
 */
import { cutToolCallArguments } from '../model/argumentView';
import type { ChatMessage } from '../model/messages';
import { viewMarker } from '../model/viewFormat';
import type { MessageMeasure } from '../policy/ledger';
import type { ActivityDeps } from './deps';
import { measureOf } from './measure';
import type { CutToolResultsInput, ViewRequest } from './types';

export function createCutToolResults({ store }: ActivityDeps) {
  return async function cutToolResults(input: CutToolResultsInput): Promise<MessageMeasure[]> {
    const measures: MessageMeasure[] = [];
    for (const request of input.views) {
      const existing = await store.get(input.sessionId, request.viewSeq);
      if (existing) {
        measures.push(measureOf(existing));
        continue;
      }
      const [source] = await store.getMany(input.sessionId, [request.sourceSeq]);
      const view = source ? viewOf(source.message, request) : undefined;
      if (!view) {
        throw new Error(`session ${input.sessionId}: seq ${request.sourceSeq} is not a tool result, a tool call or a user message and cannot be cut`);
      }
      measures.push(measureOf(await store.put(input.sessionId, request.viewSeq, view, { kind: 'view', replaces: request.sourceSeq })));
    }
    return measures;
  };
}

/**
 * A tool result or a user message cut to its head and tail; an assistant message with its long tool-call argument
 * values cut (the call stays valid JSON, and declares the same ids). Undefined for anything else.
 */
export function viewOf(message: ChatMessage, request: Pick<ViewRequest, 'sourceSeq' | 'headChars' | 'tailChars'>): ChatMessage | undefined {
  if (message.role === 'tool') return { ...message, content: headAndTail(message.content, request) };
  // An oversized task or user message is shown as a view too; its original stays readable by seq.
  if (message.role === 'user') return { ...message, content: headAndTail(message.content, request) };
  if (message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0) {
    const kept = request.headChars + request.tailChars;
    return cutToolCallArguments(message, request.sourceSeq, kept, kept > 0 ? request.headChars / kept : 1);
  }
  return undefined;
}

/** The first and last characters of `text` around a marker that says how to read the rest. */
function headAndTail(text: string, request: Pick<ViewRequest, 'sourceSeq' | 'headChars' | 'tailChars'>): string {
  const { headChars, tailChars, sourceSeq } = request;
  if (text.length <= headChars + tailChars) return text;
  const marker = viewMarker(sourceSeq, text.length - headChars - tailChars, text.length, headChars);
  return text.slice(0, headChars) + marker + (tailChars > 0 ? text.slice(-tailChars) : '');
}
