/**
 * The prune activity: replaces tool results in the context by head-and-tail views. The original
 * stays in the store under its own seq; the view names it, so `read_output` can page through it.
 */
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
      // User text too: an oversized task or message is shown as a view as well (issue 17).
      if (source?.message.role !== 'tool' && source?.message.role !== 'user') {
        throw new Error(`session ${input.sessionId}: seq ${request.sourceSeq} is not a tool result or user message and cannot be cut`);
      }
      const view = { ...source.message, content: headAndTail(source.message.content, request) };
      measures.push(measureOf(await store.put(input.sessionId, request.viewSeq, view, { kind: 'view', replaces: request.sourceSeq })));
    }
    return measures;
  };
}

/** The first and last characters of `text` around a marker that says how to read the rest. */
export function headAndTail(text: string, request: Pick<ViewRequest, 'sourceSeq' | 'headChars' | 'tailChars'>): string {
  const { headChars, tailChars, sourceSeq } = request;
  if (text.length <= headChars + tailChars) return text;
  const marker = viewMarker(sourceSeq, text.length - headChars - tailChars, text.length, headChars);
  return text.slice(0, headChars) + marker + (tailChars > 0 ? text.slice(-tailChars) : '');
}
