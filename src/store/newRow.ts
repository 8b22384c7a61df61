/** The columns of a message row as both stores write it, computed from the message once. */
import type { ChatMessage } from '../model/messages';
import { countMessageChars, countMessageTokens } from '../model/tokens';
import { searchTextOf } from './searchText';

export interface NewRow {
  readonly sessionId: string;
  readonly seq: number;
  readonly role: ChatMessage['role'];
  readonly body: string;
  readonly tokens: number;
  readonly chars: number;
  readonly meta: string;
  readonly createdAt: string;
  /** What the search indexes, or undefined for a row that is not an original. */
  readonly searchText: string | undefined;
}

/**
 * Messages longer than this (content and tool-call arguments) a SQLite store writes on a thread of
 * its own; below it the round trip would cost more than the write.
 */
export const OFF_THREAD_CHARS = 256 * 1024;

export function isLarge(message: ChatMessage): boolean {
  return countMessageChars(message) > OFF_THREAD_CHARS;
}

export function newRow(sessionId: string, seq: number, message: ChatMessage, meta: Record<string, unknown>, createdAt: string): NewRow {
  return {
    sessionId,
    seq,
    role: message.role,
    body: JSON.stringify(message),
    tokens: countMessageTokens(message),
    chars: countMessageChars(message),
    meta: JSON.stringify(meta),
    createdAt,
    searchText: searchTextOf(message, meta),
  };
}
