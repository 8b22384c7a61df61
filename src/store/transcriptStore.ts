/**
 * The claim-check transcript store: message bodies keyed by (sessionId, seq). The interface every
 * backend implements; the workflow only ever sees seqs and the numbers in `MessageMeasure`.
 */
import type { ChatMessage } from '../model/messages';
import type { SearchHit } from './searchText';

export interface StoredMessage {
  readonly sessionId: string;
  readonly seq: number;
  readonly message: ChatMessage;
  readonly tokens: number;
  readonly chars: number;
  /** Facts about how the message came to be (model usage, tool name…), returned as stored on a retry. */
  readonly meta: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

export interface SessionSummary {
  readonly sessionId: string;
  readonly messages: number;
  readonly tokens: number;
  readonly lastAt: string;
}

export interface TranscriptStore {
  /**
   * Stores a body under a workflow-allocated seq. Idempotent: when the seq is already stored, the
   * stored row is returned unchanged, so a retried activity never rewrites history.
   */
  put(sessionId: string, seq: number, message: ChatMessage, meta?: Record<string, unknown>): Promise<StoredMessage>;
  get(sessionId: string, seq: number): Promise<StoredMessage | undefined>;
  /** Rows for the given seqs in the given order; a missing seq is a `TranscriptStoreError`. */
  getMany(sessionId: string, seqs: readonly number[]): Promise<StoredMessage[]>;
  /**
   * Full-text search of one session's originals (views, summaries and the memory are not indexed):
   * every word of `query` must occur. Best matches first, at most `limit` (capped at MAX_SEARCH_HITS).
   */
  search(sessionId: string, query: string, options?: { limit?: number }): Promise<SearchHit[]>;
  /** Rows in seq order, for transcripts and audits. */
  list(sessionId: string, options?: { afterSeq?: number; limit?: number }): Promise<StoredMessage[]>;
  /**
   * Records that a world-changing tool call is about to run for the result `seq`. False when an
   * earlier attempt already recorded it: that attempt may have changed the world before it died.
   */
  markStarted(sessionId: string, seq: number): Promise<boolean>;
  sessions(): Promise<SessionSummary[]>;
  close(): Promise<void>;
}

export const TranscriptStoreErrorCode = {
  missingSeq: 'missing_seq',
  corruptRow: 'corrupt_row',
  /** The store's server could not be reached or its schema not prepared. */
  unavailable: 'unavailable',
} as const;
export type TranscriptStoreErrorCode = (typeof TranscriptStoreErrorCode)[keyof typeof TranscriptStoreErrorCode];

export class TranscriptStoreError extends Error {
  override readonly name = 'TranscriptStoreError';
  constructor(
    readonly code: TranscriptStoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
