/**
 * The transcript as the console shows it, read from the store: every row in seq order with what kind
 * of row it is, so the page can draw compaction boundaries (summaries and the memory block) and link
 * a view or a summary to the originals it stands for. Also the per-step context the chart draws.
 */
import type { SeqRun } from '../policy/seqRuns';
import type { StoredMessage } from '../store/transcriptStore';
import type { EntryKind, TranscriptEntry } from './assets/transcriptEntry';

/** A body longer than this is cut in the page; the rest stays in the store (`agentd transcript --full`). */
export const ENTRY_TEXT_CHARS = 4000;

export type { EntryKind, TranscriptEntry } from './assets/transcriptEntry';

function kindOf(meta: StoredMessage['meta']): EntryKind {
  return meta.kind === 'summary' || meta.kind === 'view' || meta.kind === 'memory' ? meta.kind : 'message';
}

function seqRunsOf(value: unknown): SeqRun[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const runs = value.filter(
    (run): run is SeqRun => Array.isArray(run) && run.length === 2 && typeof run[0] === 'number' && typeof run[1] === 'number',
  );
  return runs.length === value.length ? runs : undefined;
}

export function entryOf(row: StoredMessage): TranscriptEntry {
  const content = row.message.content ?? '';
  const toolCalls = row.message.role === 'assistant' ? (row.message.tool_calls ?? []).map((call) => ({ name: call.function.name, arguments: call.function.arguments })) : [];
  const covers = seqRunsOf(row.meta.covers);
  const replaces = typeof row.meta.replaces === 'number' ? row.meta.replaces : undefined;
  return {
    seq: row.seq,
    role: row.message.role,
    tokens: row.tokens,
    kind: kindOf(row.meta),
    text: content.slice(0, ENTRY_TEXT_CHARS),
    cutChars: Math.max(0, content.length - ENTRY_TEXT_CHARS),
    toolCalls,
    ...(typeof row.meta.toolName === 'string' ? { toolName: row.meta.toolName } : {}),
    ...(typeof row.meta.isError === 'boolean' ? { isError: row.meta.isError } : {}),
    ...(covers ? { covers } : {}),
    ...(replaces !== undefined ? { replaces } : {}),
    createdAt: row.createdAt,
  };
}

/**
 * The prompt tokens of each step's request as the endpoint counted them: each model reply is one
 * step and records its usage. A reply stored without usage counts as 0 rather than being skipped, so
 * the step numbers stay right.
 */
export function stepContextTokens(rows: readonly StoredMessage[]): number[] {
  return rows
    .filter((row) => row.message.role === 'assistant' && row.meta.kind === undefined)
    .map((row) => {
      const usage = row.meta.usage;
      const prompt = typeof usage === 'object' && usage !== null && 'promptTokens' in usage ? usage.promptTokens : 0;
      return typeof prompt === 'number' ? prompt : 0;
    });
}

/** The newest row of a kind: the session memory block and the current summary as the model sees them. */
export function newestOfKind(rows: readonly StoredMessage[], kind: 'summary' | 'memory'): TranscriptEntry | undefined {
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index];
    if (row !== undefined && row.meta.kind === kind) return entryOf(row);
  }
  return undefined;
}
