/** The row shape both SQL backends store a message in, and how a row becomes a `StoredMessage`. */
import { ChatMessageSchema } from '../model/messages';
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
