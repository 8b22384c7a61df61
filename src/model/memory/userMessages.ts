/** The memory's quotes of what the user wrote after the task: verbatim while they fit, then first words. Pure. */
import { isMemoryMessage, quotedUserMessage, USER_MESSAGES_HEADING } from '../memoryFormat';
import { isNotice } from '../noticeFormat';
import { isSummaryMessage } from '../summaryFormat';
import type { MemoryRow } from './memoryRow';
import { firstWords, lineTokens } from './text';

/** Words kept of a user message that no longer fits verbatim. */
const FIRST_WORDS = 12;

/** The user's own messages after the task: no notices, summaries or memories agentd wrote as user messages. */
export function userMessages(originals: readonly MemoryRow[], taskSeq: number): MemoryRow[] {
  return originals.filter((row) => {
    const { message } = row;
    return (
      row.seq > taskSeq &&
      message.role === 'user' &&
      !isNotice(message.content) &&
      !isSummaryMessage(message.content) &&
      !isMemoryMessage(message.content)
    );
  });
}

export interface QuotedUserMessages {
  readonly lines: string[];
  /** Seqs quoted whole: their statements need no line of their own. */
  readonly verbatim: ReadonlySet<number>;
}

/** Newest first, verbatim while they fit; older ones as one line each, while those fit. */
export function quoteUserMessages(users: readonly MemoryRow[], budget: number): QuotedUserMessages {
  const verbatimSeqs = new Set<number>();
  if (users.length === 0) return { lines: [], verbatim: verbatimSeqs };
  const title = USER_MESSAGES_HEADING;
  const lines = [title];
  let cost = lineTokens(title);
  let verbatim = true;
  const short: string[] = [];
  for (const row of [...users].reverse()) {
    const text = row.message.content ?? '';
    if (verbatim) {
      const line = quotedUserMessage(row.seq, text);
      const lineCost = lineTokens(line);
      if (cost + lineCost <= budget) {
        lines.push(line);
        verbatimSeqs.add(row.seq);
        cost += lineCost;
        continue;
      }
      verbatim = false;
    }
    const line = `- seq ${row.seq}: ${firstWords(text, FIRST_WORDS)}`;
    const lineCost = lineTokens(line);
    if (cost + lineCost > budget) break;
    short.push(line);
    cost += lineCost;
  }
  if (short.length > 0) lines.push('Older messages, first words only (read_output with the seq shows one whole):', ...short);
  return { lines: lines.length > 1 ? lines : [], verbatim: verbatimSeqs };
}
