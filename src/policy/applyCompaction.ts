/**
 * Builds the live context a compaction or truncation leaves, from the decision and what the
 * activities stored (DESIGN §5 "Result"): `[pinned…, memory?, summary?, …older kept by pruning, …tail]`.
 * Pure: seqs of summaries and views are allocated by the workflow and passed in.
 */
import { appendOriginals } from './accounting';
import type { AppliedCompaction, Replacement } from './compactionEvent';
import type { CompactDecision, ProjectionBasis, TruncateDecision } from './decision';
import { CompactionError, CompactionErrorCode } from './errors';
import { projectTokens, rawContextTokens } from './estimate';
import { LedgerKind, LedgerRole, type LedgerEntry } from './ledger';
import { fromSeqRuns, toSeqRuns } from './seqRuns';

/** What the prune and summary activities stored for a `compact` decision. */
export interface CompactionResults {
  /** The summary message (strategy `summary`): its seq and the measure of its stored body. */
  readonly summary?: { readonly seq: number; readonly tokens: number; readonly chars: number };
  /**
   * The session memory stored beside the summary (strategy `summary`); absent in histories from
   * before it existed, where the summary stands alone.
   */
  readonly memory?: { readonly seq: number; readonly tokens: number; readonly chars: number };
  /** One view per `prune` and `tailCuts` item of the decision. */
  readonly views?: ReadonlyArray<{
    /** Live seq the view replaces (the `seq` of the cut). */
    readonly replacedSeq: number;
    /** Seq of the stored view. */
    readonly seq: number;
    readonly tokens: number;
    readonly chars: number;
  }>;
}

/**
 * The new ledger and its event. The summary is a `user` message (see `LedgerKind`) placed right after
 * the pinned entries; views keep their original's role, turn, step and tool-call id, so the step they
 * belong to stays whole. Throws `CompactionError` only for programming errors (stale decision,
 * results that do not match it).
 */
export function applyCompaction(
  ledger: readonly LedgerEntry[],
  decision: CompactDecision,
  results: CompactionResults,
): AppliedCompaction {
  const summarizing = decision.strategy === 'summary';
  const cuts = summarizing ? decision.tailCuts : [...decision.prune, ...decision.tailCuts];
  const views = new Map((results.views ?? []).map((view) => [view.replacedSeq, view]));
  if (views.size !== (results.views ?? []).length || views.size !== cuts.length || cuts.some((cut) => !views.has(cut.seq))) {
    throw new CompactionError(
      CompactionErrorCode.resultsMismatch,
      `the decision cuts seqs [${cuts.map((cut) => cut.seq).join(', ')}] but views were stored for ` +
        `[${(results.views ?? []).map((view) => view.replacedSeq).join(', ')}]`,
    );
  }
  if (!summarizing && results.memory !== undefined) {
    throw new CompactionError(CompactionErrorCode.resultsMismatch, 'a prune compaction must not bring a session memory');
  }
  if (summarizing !== (results.summary !== undefined)) {
    throw new CompactionError(
      CompactionErrorCode.resultsMismatch,
      summarizing ? 'a summary compaction needs the stored summary' : 'a prune compaction must not bring a summary',
    );
  }

  const tail = new Set(decision.tail);
  const summarize = new Set(summarizing ? fromSeqRuns(decision.summarize) : []);
  const replacedMemory = new Set(summarizing ? fromSeqRuns(decision.replacedMemory) : []);
  const pinnedOut: LedgerEntry[] = [];
  const keptMemory: LedgerEntry[] = [];
  const olderOut: LedgerEntry[] = [];
  const tailOut: LedgerEntry[] = [];
  const replaced: Replacement[] = [];
  const covers: number[] = [];
  let summarizedTokens = 0;
  let summarizedFound = 0;
  let memoryFound = 0;
  let lastSummarizedTurn = 0;

  const withView = (entry: LedgerEntry): LedgerEntry => {
    const view = views.get(entry.seq);
    if (!view) return entry;
    replaced.push({ originalSeq: entry.seq, replacementSeq: view.seq, tokensBefore: entry.tokens, tokensAfter: view.tokens });
    return {
      seq: view.seq,
      role: entry.role,
      tokens: view.tokens,
      chars: view.chars,
      turn: entry.turn,
      step: entry.step,
      ...(entry.declares !== undefined ? { declares: entry.declares } : {}),
      ...(entry.answers !== undefined ? { answers: entry.answers } : {}),
      kind: LedgerKind.view,
      // A view always names the original, even when it re-cuts an earlier view smaller.
      replaces: entry.kind === LedgerKind.view ? (entry.replaces ?? entry.seq) : entry.seq,
    };
  };

  // The new memory replaces the old one only when summary and memory together still weigh less than
  // what they replace; else the old memory stays (so a small region is not "compacted" into more).
  let oldMemoryTokens = 0;
  let regionTokens = 0;
  for (const entry of ledger) {
    if (replacedMemory.has(entry.seq)) oldMemoryTokens += entry.tokens;
    else if (summarize.has(entry.seq)) regionTokens += entry.tokens;
  }
  const newMemory =
    results.memory && results.summary && results.memory.tokens + results.summary.tokens < regionTokens + oldMemoryTokens
      ? results.memory
      : undefined;

  for (const entry of ledger) {
    if (entry.pinned) {
      pinnedOut.push(entry);
    } else if (tail.has(entry.seq)) {
      tailOut.push(withView(entry));
    } else if (summarizing && replacedMemory.has(entry.seq)) {
      // The old session memory leaves for the new one, built from the same store and newer.
      memoryFound++;
      if (!newMemory) keptMemory.push(entry);
    } else if (summarizing) {
      if (!summarize.has(entry.seq)) throw stale(`seq ${entry.seq} is neither pinned, in the tail nor summarized`);
      appendOriginals(covers, entry);
      summarizedTokens += entry.tokens;
      summarizedFound++;
      lastSummarizedTurn = entry.turn;
    } else {
      olderOut.push(withView(entry));
    }
  }
  if (tailOut.length !== tail.size) throw stale('tail seqs are missing from the ledger');
  if (summarizedFound !== summarize.size) throw stale('summarized seqs are missing from the ledger');
  if (memoryFound !== replacedMemory.size) throw stale('the replaced session memory is missing from the ledger');
  if (replaced.length !== cuts.length) throw stale('cut seqs are missing from the ledger');

  covers.sort((a, b) => a - b);
  const coveredSeqs = toSeqRuns(covers);
  const summaryEntry: LedgerEntry[] = results.summary
    ? [
        {
          seq: results.summary.seq,
          role: LedgerRole.user,
          tokens: results.summary.tokens,
          chars: results.summary.chars,
          turn: lastSummarizedTurn,
          step: 0,
          kind: LedgerKind.summary,
          covers: coveredSeqs,
        },
      ]
    : [];
  const memoryEntry: LedgerEntry[] = newMemory
    ? [
        {
          seq: newMemory.seq,
          role: LedgerRole.user,
          tokens: newMemory.tokens,
          chars: newMemory.chars,
          turn: lastSummarizedTurn,
          step: 0,
          kind: LedgerKind.memory,
        },
      ]
    : [];
  const next = [...pinnedOut, ...keptMemory, ...memoryEntry, ...summaryEntry, ...olderOut, ...tailOut];
  const { calibration, perMessageOverheadTokens, toolSchemaTokens, excessTokens } = decision.projection;
  return {
    ledger: next,
    event: {
      requestedBy: decision.requestedBy,
      strategy: decision.strategy,
      tokensBefore: decision.estimateBefore,
      tokensAfter: projectTokens(rawContextTokens(next, perMessageOverheadTokens, toolSchemaTokens), calibration, excessTokens),
      coveredSeqs: summarizing ? coveredSeqs : [],
      truncatedSeqs: [],
      replaced,
      ...(results.summary
        ? {
            summary: {
              seq: results.summary.seq,
              replacesSeqs: decision.summarize,
              tokensBefore: summarizedTokens,
              tokensAfter: results.summary.tokens,
            },
          }
        : {}),
    },
  };
}

/** The ledger without the dropped steps, and the truncation event listing the originals they stood for. */
export function applyTruncation(ledger: readonly LedgerEntry[], decision: TruncateDecision): AppliedCompaction {
  const drop = new Set(fromSeqRuns(decision.drop));
  const next: LedgerEntry[] = [];
  const originals: number[] = [];
  for (const entry of ledger) {
    if (!drop.has(entry.seq)) next.push(entry);
    else if (entry.pinned) throw stale(`seq ${entry.seq} is pinned and cannot be dropped`);
    else appendOriginals(originals, entry);
  }
  if (next.length !== ledger.length - drop.size) throw stale('dropped seqs are missing from the ledger');
  originals.sort((a, b) => a - b);
  const { calibration, perMessageOverheadTokens, toolSchemaTokens, excessTokens } = decision.projection;
  return {
    ledger: next,
    event: {
      requestedBy: decision.requestedBy,
      strategy: 'truncate',
      tokensBefore: decision.estimateBefore,
      tokensAfter: projectTokens(rawContextTokens(next, perMessageOverheadTokens, toolSchemaTokens), calibration, excessTokens),
      coveredSeqs: [],
      truncatedSeqs: toSeqRuns(originals),
      replaced: [],
      cause: decision.cause,
    },
  };
}

/**
 * The truncated context with a fresh session memory in place of any earlier one, right after the
 * pinned entries (DESIGN §5 "Session memory"); the event's `tokensAfter` counts it.
 */
export function withSessionMemory(
  applied: AppliedCompaction,
  memory: { readonly seq: number; readonly tokens: number; readonly chars: number },
  projection: ProjectionBasis,
): AppliedCompaction {
  const pinned = applied.ledger.filter((entry) => entry.pinned);
  const rest = applied.ledger.filter((entry) => !entry.pinned && entry.kind !== LedgerKind.memory);
  const entry: LedgerEntry = {
    seq: memory.seq,
    role: LedgerRole.user,
    tokens: memory.tokens,
    chars: memory.chars,
    turn: rest[0]?.turn ?? pinned[pinned.length - 1]?.turn ?? 0,
    step: 0,
    kind: LedgerKind.memory,
  };
  const ledger = [...pinned, entry, ...rest];
  const { calibration, perMessageOverheadTokens, toolSchemaTokens, excessTokens } = projection;
  const tokensAfter = projectTokens(rawContextTokens(ledger, perMessageOverheadTokens, toolSchemaTokens), calibration, excessTokens);
  return { ledger, event: { ...applied.event, tokensAfter } };
}

function stale(detail: string): CompactionError {
  return new CompactionError(CompactionErrorCode.staleDecision, `the ledger changed since the decision: ${detail}`);
}
