/**
 * Builds the session memory block from the store and keeps it under its seq
 * (DESIGN §5 "Session memory"): the summarize activity does so beside a summary, and the workflow
 * asks for one after a truncation, so a session whose summarizer never works still carries the
 * user's words and the artifact trail. Idempotent: a retry finds the stored block.
 */
import type { MessageMeasure } from '../policy/ledger';
import { fromSeqRuns } from '../policy/seqRuns';
import type { TranscriptStore } from '../store/transcriptStore';
import type { ActivityDeps } from './deps';
import { measureOf } from './measure';
import { buildSessionMemory, sessionMemoryMessage } from '../model/sessionMemory';
import type { StoreSessionMemoryInput } from './types';

export async function writeSessionMemory(store: TranscriptStore, input: StoreSessionMemoryInput): Promise<MessageMeasure> {
  const existing = await store.get(input.sessionId, input.memorySeq);
  if (existing) return measureOf(existing);
  const pinned = fromSeqRuns(input.pinned);
  const text = buildSessionMemory({
    rows: await store.list(input.sessionId),
    taskSeq: pinned[pinned.length - 1] ?? 0,
    summarized: input.summarized,
    kept: input.kept,
    budgetTokens: input.budgetTokens,
  });
  return measureOf(await store.put(input.sessionId, input.memorySeq, sessionMemoryMessage(text), { kind: 'memory' }));
}

export function createStoreSessionMemory({ store }: ActivityDeps) {
  return function storeSessionMemory(input: StoreSessionMemoryInput): Promise<MessageMeasure> {
    return writeSessionMemory(store, input);
  };
}
