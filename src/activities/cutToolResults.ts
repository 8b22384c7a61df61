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
import { capText } from '../model/capText';
import { measureOf } from './measure';
import { byImportance, tellingLines, type TellingLine } from '../model/memory/tellingLines';
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
  if (message.role === 'tool') return { ...message, content: headMiddleAndTail(message.content, request) };
  // An oversized task or user message is shown as a view too; its original stays readable by seq.
  if (message.role === 'user') return { ...message, content: headAndTail(message.content, request) };
  if (message.role === 'assistant') return assistantView(message, request);
  return undefined;
}

/**
 * A reply with its text cut to head and tail and its long argument values cut. With tool calls, the
 * text may keep half the room and the arguments the rest; without, the text keeps it all. Undefined
 * for a reply with neither text nor calls to cut.
 */
function assistantView(message: Extract<ChatMessage, { role: 'assistant' }>, request: Pick<ViewRequest, 'sourceSeq' | 'headChars' | 'tailChars'>): ChatMessage | undefined {
  const hasCalls = (message.tool_calls?.length ?? 0) > 0;
  if (message.content === null && !hasCalls) return undefined;
  const textShare = hasCalls ? 0.5 : 1;
  const textRoom = { ...request, headChars: Math.floor(request.headChars * textShare), tailChars: Math.floor(request.tailChars * textShare) };
  const withText = message.content === null ? message : { ...message, content: headAndTail(message.content, textRoom) };
  if (!hasCalls) return withText;
  const kept = request.headChars + request.tailChars;
  return cutToolCallArguments(withText, request.sourceSeq, kept, kept > 0 ? request.headChars / kept : 1);
}

/** Share of the head the telling lines of the cut middle may take: the head still shows how the output began. */
const MIDDLE_SHARE_OF_HEAD = 0.5;
/** Characters of one telling line a view keeps. */
const MIDDLE_LINE_CHARS = 200;
const MIDDLE_TITLE = '[lines kept from the cut part: errors, failing checks, printed values]\n';

/**
 * A tool output as its head and tail, with the telling lines of the cut middle (errors, failing
 * checks, printed values: `memory/tellingLines`) between them, so a prune loses no stated fact the
 * view could hold. Their room is taken from the head, so the view is no longer than a plain
 * head-and-tail view; the marker's offset is where the shorter head ends.
 */
function headMiddleAndTail(text: string, request: Pick<ViewRequest, 'sourceSeq' | 'headChars' | 'tailChars'>): string {
  const { headChars, tailChars, sourceSeq } = request;
  if (text.length <= headChars + tailChars) return text;
  const room = Math.floor(headChars * MIDDLE_SHARE_OF_HEAD) - MIDDLE_TITLE.length;
  if (room <= 0) return headAndTail(text, request);
  // Lines from where even the shortest head ends (the head may shrink by up to `room`) to the tail.
  let found = tellingLines(text, headChars - room - MIDDLE_TITLE.length, text.length - tailChars);
  let middle = middleOf(found, room);
  // Lines the shortened head still shows whole need no second copy; dropping them only lengthens the head.
  const head = headChars - middle.length;
  found = found.filter((line) => line.offset + line.text.length > head);
  middle = middleOf(found, room);
  if (middle === '') return headAndTail(text, request);
  const headEnd = headChars - middle.length;
  const marker = viewMarker(sourceSeq, text.length - headEnd - tailChars, text.length, headEnd);
  return text.slice(0, headEnd) + marker + middle + (tailChars > 0 ? text.slice(-tailChars) : '');
}

/**
 * The kept lines under their title, within `room` characters, in output order; errors and failing
 * checks are chosen before values when not all fit. Empty when none fits.
 */
function middleOf(lines: readonly TellingLine[], room: number): string {
  const kept: Array<{ index: number; shown: string }> = [];
  let used = 0;
  for (const line of byImportance(lines)) {
    const shown = capText(line.text, MIDDLE_LINE_CHARS);
    if (used + shown.length + 1 > room) continue;
    kept.push({ index: line.index, shown });
    used += shown.length + 1;
  }
  kept.sort((a, b) => a.index - b.index);
  return kept.length === 0 ? '' : MIDDLE_TITLE + kept.map((line) => `${line.shown}\n`).join('');
}

/** The first and last characters of `text` around a marker that says how to read the rest. */
function headAndTail(text: string, request: Pick<ViewRequest, 'sourceSeq' | 'headChars' | 'tailChars'>): string {
  const { headChars, tailChars, sourceSeq } = request;
  if (text.length <= headChars + tailChars) return text;
  const marker = viewMarker(sourceSeq, text.length - headChars - tailChars, text.length, headChars);
  return text.slice(0, headChars) + marker + (tailChars > 0 ? text.slice(-tailChars) : '');
}
