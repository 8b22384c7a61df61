/** The row shape both SQL backends store a message in, and how a row becomes a `StoredMessage`. */
import { z } from 'zod';
import { ChatMessageSchema, ToolCallSchema, type ToolCall } from '../model/messages';
import { TranscriptStoreError, type StoredMessage } from './transcriptStore';

export interface MessageRow {
  session_id: string;
  seq: number;
  /** The message as JSON text, checked against the schema again on the way out. */
  body: string;
  tokens: number;
  chars: number;
  meta: string;
  /** ISO text in SQLite; node-postgres hands back a `Date`. */
  created_at: string | Date;
}

/** A row that does not parse is a `corrupt_row` error naming it, never a half-read message. */
export function toStoredMessage(row: MessageRow): StoredMessage {
  try {
    return {
      sessionId: row.session_id,
      seq: row.seq,
      message: ChatMessageSchema.parse(JSON.parse(row.body)),
      tokens: row.tokens,
      chars: row.chars,
      meta: JSON.parse(row.meta) as Record<string, unknown>,
      createdAt: row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at,
    };
  } catch (cause) {
    throw new TranscriptStoreError('corrupt_row', `session ${row.session_id} seq ${row.seq} is not a valid message`, {
      cause,
    });
  }
}

/** The declared calls of a row read as (role, tool_calls JSON); undefined for a row that is not an assistant message. */
export function toToolCalls(sessionId: string, seq: number, row: { role: string; calls: string | null } | undefined): ToolCall[] | undefined {
  if (row?.role !== 'assistant') return undefined;
  const parsed = z.array(ToolCallSchema).safeParse(row.calls === null ? [] : JSON.parse(row.calls));
  if (!parsed.success) throw new TranscriptStoreError('corrupt_row', `session ${sessionId} seq ${seq} declares malformed tool calls`, { cause: parsed.error });
  return parsed.data;
}
