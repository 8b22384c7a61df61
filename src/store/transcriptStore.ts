/**
 * The claim-check transcript store: message bodies keyed by (sessionId, seq). The interface every
 * backend implements; the workflow only ever sees seqs and the numbers in `MessageMeasure`.
 */
import type { ChatMessage, ToolCall } from '../model/messages';
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
  /**
   * The tool calls the assistant message at `seq` declares, read without its text (a reply may be
   * 20 MB, and each of its calls needs only itself); undefined when `seq` holds no assistant message.
   */
  toolCallsOf(sessionId: string, seq: number): Promise<ToolCall[] | undefined>;
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
  /**
   * Makes the session's rows this run's own before it writes any (`firstRunId` is the workflow's first run,
   * the same across continue-as-new). Rows another run of the same id left behind are never handed to this
   * one: without `replace` the claim is refused; with it they move to `archivedKey(sessionId, theirRun)`
   * first. In one transaction, so a retried claim finds its own and succeeds.
   */
  claimSession(sessionId: string, firstRunId: string, options: { replace: boolean }): Promise<SessionClaim>;
  sessions(): Promise<SessionSummary[]>;
  close(): Promise<void>;
}

/** What `claimSession` found: nothing (or its own claim), rows it moved aside, or rows it must not take. */
export type SessionClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'replaced'; readonly archivedAs: string }
  | { readonly kind: 'taken'; readonly byRunId?: string };

/**
 * Where a replaced session's rows are kept: `<id>@<its first run>`. `@` is not allowed in session ids, so an
 * archive can never be taken for, or claimed by, a live session. `earlier` names rows from before claims existed.
 */
export function archivedKey(sessionId: string, firstRunId: string | undefined): string {
  return `${sessionId}@${firstRunId ?? 'earlier'}`;
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
