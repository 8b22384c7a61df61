/**
 * What a summarization request asks to have summarized. A summary request repeats the session's
 * previous request word for word plus the instruction, so the instruction's range line says which
 * messages the summary replaces; the ones after stay in the context and are not the summary's job.
 */
import type { ChatMessage } from '../model/messages';
import { parseSummaryRange } from '../model/summaryFormat';

export interface SummaryRegion {
  /** The messages to summarize, in order. */
  readonly messages: readonly ChatMessage[];
  /** The pinned task (message 2) when the range starts after it: the summary still states the goal. */
  readonly task?: ChatMessage;
}

/**
 * Messages F..L (1-based, counted over the messages before the instruction) when the instruction
 * names a range, else all of them. A range past the end is cut at the end, as a model reads what is there.
 */
export function summaryRegion(messages: readonly ChatMessage[]): SummaryRegion {
  const instruction = messages[messages.length - 1];
  const before = messages.slice(0, -1);
  const range = instruction?.role === 'user' ? parseSummaryRange(instruction.content) : undefined;
  if (range === undefined) return { messages: before };
  const task = before[1];
  return {
    messages: before.slice(range.first - 1, range.last),
    ...(range.first > 2 && task !== undefined ? { task } : {}),
  };
}
