/**
 * A transcript row as the session memory reads it. The store's rows fit it as they are; the memory
 * names only what it reads, so the builder stays pure and below the store.
 */
import type { ChatMessage } from '../messages';

export interface MemoryRow {
  readonly seq: number;
  readonly message: ChatMessage;
  /** agentd's own rows (summaries, notices, memories) carry a `kind`; a tool output may carry `isError`. */
  readonly meta: Readonly<Record<string, unknown>>;
}
