/**
 * The tail a compaction keeps verbatim (DESIGN §5): the newest whole turns within the cap, topped up
 * with whole steps of the turn before; or the newest whole steps of an oversized turn; or one step
 * with its largest tool results and tool-call arguments cut to views. Pure: works on ledger numbers.
 */
import type { LedgerEntry } from './ledger';
import type { CompactionSettings } from './settings';
import { stepSpans, type StepSpan } from './steps';
import { MIN_VIEW_CHARS, splitView, viewCut, type ViewCut } from './viewSize';

/** How the tail was chosen. */
export const TailShape = {
  /** No unpinned step after the last summary: nothing to keep. */
  empty: 'empty',
  /** Whole turns (possibly topped up with steps of the turn before). */
  turns: 'turns',
  /** The newest turn alone is over the cap: its newest whole steps that fit. */
  steps: 'steps',
  /** The newest step alone is over the cap: kept with tool results cut to views. */
  cut: 'cut',
} as const;
export type TailShape = (typeof TailShape)[keyof typeof TailShape];

export interface TailSelection {
  /** Ledger index where the tail starts; the ledger length when the tail is empty. */
  readonly start: number;
  /** Live seqs of the tail, in ledger order (pinned entries are never here: they are kept apart). */
  readonly seqs: number[];
  /** Tool results and tool calls of the single kept step to replace with views so it fits (shape `cut` only). */
  readonly cuts: ViewCut[];
  /** Our tokens of the tail after its cuts, per-message overhead included. */
  readonly weight: number;
  /** The tail is within the cap; false only when one step cannot be cut down far enough. */
  readonly fits: boolean;
  /** How the tail was chosen. */
  readonly shape: TailShape;
  /** Whole turns kept. */
  readonly wholeTurns: number;
  /** Whole steps of the turn before the kept turns, added because the cap had room for them. */
  readonly topUpSteps: number;
}

type TailSettings = Pick<CompactionSettings, 'tailTurns' | 'perMessageOverheadTokens' | 'pruneHeadChars' | 'pruneTailChars'>;

/** How a step over the cap may be cut. */
export interface CutOptions {
  /**
   * Cut long tool-call arguments of the assistant message too (false replays histories written
   * before such views existed, whose decisions cut tool results only). @default true
   */
  readonly cutToolCalls?: boolean;
}

/**
 * Chooses the tail of `ledger` within `capTokens` (our tokens, from `effectiveTailCap`). Whole steps
 * only, so a tool result never leaves its declaring message; never a summary (the next summary merges it).
 */
export function selectTail(
  ledger: readonly LedgerEntry[],
  capTokens: number,
  settings: TailSettings,
  options: CutOptions = {},
): TailSelection {
  const spans = stepSpans(ledger, settings.perMessageOverheadTokens);
  let firstCandidate = 0;
  for (let i = 0; i < spans.length; i++) if (spans[i]!.summary) firstCandidate = i + 1;
  const candidates = spans.slice(firstCandidate);
  if (candidates.length === 0) {
    return { start: ledger.length, seqs: [], cuts: [], weight: 0, fits: true, shape: TailShape.empty, wholeTurns: 0, topUpSteps: 0 };
  }
  const turns = groupTurnsNewestFirst(candidates);

  // Newest whole turns while they fit: the same as "drop the oldest turn until it fits".
  let kept = 0;
  let weight = 0;
  let startSpan = candidates.length;
  while (kept < turns.length && kept < settings.tailTurns) {
    const turn = turns[kept]!;
    const turnWeight = sumWeight(candidates, turn.from, turn.to);
    if (weight + turnWeight > capTokens) break;
    weight += turnWeight;
    startSpan = turn.from;
    kept++;
  }

  if (kept > 0) {
    // Room left: newest whole steps of the turn before, so a long turn just before a short one is
    // not summarized entirely while the cap sits half empty.
    let topUpSteps = 0;
    const before = turns[kept];
    if (before) {
      for (let i = before.to - 1; i >= before.from; i--) {
        const span = candidates[i]!;
        if (weight + span.weight > capTokens) break;
        weight += span.weight;
        startSpan = i;
        topUpSteps++;
      }
    }
    return finish(ledger, candidates, startSpan, [], weight, true, TailShape.turns, kept, topUpSteps);
  }

  // The newest turn alone is over the cap: its newest whole steps that fit, never fewer than one.
  const newest = turns[0]!;
  const last = candidates[newest.to - 1]!;
  if (last.weight <= capTokens) {
    weight = last.weight;
    startSpan = newest.to - 1;
    for (let i = newest.to - 2; i >= newest.from; i--) {
      const span = candidates[i]!;
      if (weight + span.weight > capTokens) break;
      weight += span.weight;
      startSpan = i;
    }
    return finish(ledger, candidates, startSpan, [], weight, true, TailShape.steps, 0, 0);
  }

  // The one step that must be kept is itself over the cap: cut its largest tool results.
  const cut = cutStepToFit(ledger, last, capTokens, settings, options);
  return finish(ledger, candidates, newest.to - 1, cut.cuts, cut.weight, cut.weight <= capTokens, TailShape.cut, 0, 0);
}

/**
 * Cuts the largest parts of one step until it fits `capTokens`: its tool results, and its assistant
 * message when that declares tool calls (the view cuts long argument values and stays valid JSON: a
 * 22K-token `write_file` body is in the workspace and the store already). First to the configured
 * head-and-tail view, then, if that is not enough, down to `MIN_VIEW_CHARS`. A step can still stay
 * over the cap when its messages are many or their own text is long.
 */
function cutStepToFit(
  ledger: readonly LedgerEntry[],
  span: StepSpan,
  capTokens: number,
  settings: Pick<CompactionSettings, 'pruneHeadChars' | 'pruneTailChars'>,
  options: CutOptions = {},
): { cuts: ViewCut[]; weight: number } {
  const cutToolCalls = options.cutToolCalls ?? true;
  const tools: number[] = [];
  for (let i = span.start; i < span.end; i++) {
    const entry = ledger[i]!;
    if (entry.role === 'tool' || (cutToolCalls && entry.role === 'assistant' && (entry.declares?.length ?? 0) > 0)) tools.push(i);
  }
  const cuts = new Map<number, ViewCut>();
  let weight = span.weight;
  const current = (i: number): number => cuts.get(i)?.expectedTokens ?? ledger[i]!.tokens;
  const byCurrentSize = (): number[] => [...tools].sort((a, b) => current(b) - current(a) || a - b);

  const small = splitView(MIN_VIEW_CHARS, settings.pruneHeadChars, settings.pruneTailChars);
  const levels = [
    { head: settings.pruneHeadChars, tail: settings.pruneTailChars },
    { head: small.head, tail: small.tail },
  ];
  for (const level of levels) {
    for (const i of byCurrentSize()) {
      if (weight <= capTokens) break;
      const cut = viewCut(ledger[i]!, level.head, level.tail);
      if (!cut || cut.expectedTokens >= current(i)) continue;
      weight -= current(i) - cut.expectedTokens;
      cuts.set(i, cut);
    }
  }
  // Ledger order, so the decision reads like the context.
  const ordered = [...cuts.entries()].sort((a, b) => a[0] - b[0]).map(([, cut]) => cut);
  return { cuts: ordered, weight };
}

interface TurnRange {
  /** Index in the candidate spans of the turn's first span. */
  readonly from: number;
  /** Index after its last span. */
  readonly to: number;
}

function groupTurnsNewestFirst(spans: readonly StepSpan[]): TurnRange[] {
  const turns: TurnRange[] = [];
  let to = spans.length;
  for (let i = spans.length - 1; i >= 0; i--) {
    if (i === 0 || spans[i - 1]!.turn !== spans[i]!.turn) {
      turns.push({ from: i, to });
      to = i;
    }
  }
  return turns;
}

function sumWeight(spans: readonly StepSpan[], from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i++) total += spans[i]!.weight;
  return total;
}

function finish(
  ledger: readonly LedgerEntry[],
  candidates: readonly StepSpan[],
  startSpan: number,
  cuts: ViewCut[],
  weight: number,
  fits: boolean,
  shape: TailShape,
  wholeTurns: number,
  topUpSteps: number,
): TailSelection {
  const start = candidates[startSpan]!.start;
  const end = candidates[candidates.length - 1]!.end;
  const seqs: number[] = [];
  for (let i = start; i < end; i++) if (!ledger[i]!.pinned) seqs.push(ledger[i]!.seq);
  return { start, seqs, cuts, weight, fits, shape, wholeTurns, topUpSteps };
}
