/**
 * What the transcript search indexes of a message (DESIGN §5 "Nothing lost for good"): its text and,
 * for an assistant message, each tool call's name and the string values of its arguments unescaped
 * (a `write_file` body is searchable as written, not as JSON). Pure.
 */
import type { ChatMessage } from '../model/messages';

/** One search result: the original's seq and role, and a snippet around the match. */
export interface SearchHit {
  readonly seq: number;
  readonly role: ChatMessage['role'];
  /** A few words around the match, the matched words between `[` and `]`. */
  readonly snippet: string;
}

/** Most hits one search returns, whatever the caller asks for. */
export const MAX_SEARCH_HITS = 50;

/**
 * The text indexed for `message`, or undefined when the row is not an original (a view, a summary or
 * the session memory repeat what is indexed elsewhere, and would crowd the results).
 */
export function searchTextOf(message: ChatMessage, meta: Record<string, unknown>): string | undefined {
  if (meta.kind !== undefined) return undefined;
  const parts = [message.content ?? ''];
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) parts.push(call.function.name, ...argumentTexts(call.function.arguments));
  }
  // PostgreSQL text cannot hold NUL; a tool output may.
  return indexedPart(parts.join('\n')).replace(/\u0000/g, ' ');
}

/**
 * Characters of one message the search indexes: any ordinary message whole. Past it, the head and
 * the tail: indexing 20 MB holds a thread for a fifth of a second, and PostgreSQL refuses a text
 * search vector over 1 MB. The original stays whole in the store, readable by seq.
 */
export const MAX_INDEXED_CHARS = 256_000;

function indexedPart(text: string): string {
  if (text.length <= MAX_INDEXED_CHARS) return text;
  const tail = MAX_INDEXED_CHARS / 4;
  return `${text.slice(0, MAX_INDEXED_CHARS - tail)}\n${text.slice(-tail)}`;
}

function argumentTexts(args: string): string[] {
  try {
    const texts: string[] = [];
    collect(JSON.parse(args) as unknown, texts);
    return texts;
  } catch {
    return [args];
  }
}

function collect(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collect(item, out);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) collect(item, out);
}

/**
 * The words of a query, each as an FTS5 phrase (quoted, so punctuation such as `-`, `:` or `*` is
 * never read as query syntax); every phrase must match. Empty when the query has no words.
 */
export function ftsQuery(query: string): string {
  return query
    .split(/\s+/)
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .map((word) => `"${word.replace(/"/g, '""')}"`)
    .join(' ');
}
