/**
 * Builders and invariant checks for the policy tests: ledgers with predictable seqs (0, 1, 2… in
 * append order; tool-call ids `call_<assistant seq>_<n>`), and checks that return the first broken
 * rule as a string (undefined when all hold), so a property failure says what broke.
 */
import type { LedgerEntry } from '../../../src/policy/ledger';
import { resolveCompactionSettings, type ResolvedCompactionSettings } from '../../../src/policy/settings';
import { stepSpans } from '../../../src/policy/steps';

/** Chars per token of generated bodies when a test does not say otherwise. */
export const CHARS_PER_TOKEN = 4;

/** A tool result: its tokens, and its chars when the density matters. */
export type ToolSpec = number | { tokens: number; chars: number };

export class LedgerBuilder {
  readonly entries: LedgerEntry[] = [];
  private nextSeq = 0;
  private turnNo = 0;
  private stepNo = 0;

  /** The pinned system prompt (turn 0) and task (turn 1), as the workflow opens a session. */
  static session(systemTokens = 500, taskTokens = 200): LedgerBuilder {
    const builder = new LedgerBuilder();
    builder.push({ role: 'system', tokens: systemTokens, chars: systemTokens * CHARS_PER_TOKEN, turn: 0, step: 0, pinned: true });
    builder.turnNo = 1;
    builder.push({ role: 'user', tokens: taskTokens, chars: taskTokens * CHARS_PER_TOKEN, turn: 1, step: 0, pinned: true });
    return builder;
  }

  /** Continues an existing ledger (compacted or not): new seqs, turns and steps follow its largest ones. */
  static from(ledger: readonly LedgerEntry[]): LedgerBuilder {
    const builder = new LedgerBuilder();
    for (const entry of ledger) {
      builder.entries.push({ ...entry });
      builder.nextSeq = Math.max(builder.nextSeq, entry.seq + 1);
      builder.turnNo = Math.max(builder.turnNo, entry.turn);
      builder.stepNo = Math.max(builder.stepNo, entry.step);
    }
    return builder;
  }

  /** A user message opening the next turn. */
  user(tokens = 50): this {
    this.turnNo += 1;
    this.push({ role: 'user', tokens, chars: tokens * CHARS_PER_TOKEN, turn: this.turnNo, step: 0 });
    return this;
  }

  /** One step: an assistant message declaring one call per tool result, then the results. */
  step(tools: readonly ToolSpec[] = [], assistantTokens = 60): this {
    this.stepNo += 1;
    const assistantSeq = this.nextSeq;
    const ids = tools.map((_, n) => `call_${assistantSeq}_${n}`);
    this.push({
      role: 'assistant',
      tokens: assistantTokens,
      chars: assistantTokens * CHARS_PER_TOKEN,
      turn: this.turnNo,
      step: this.stepNo,
      ...(ids.length > 0 ? { declares: ids } : {}),
    });
    tools.forEach((tool, n) => {
      const { tokens, chars } = typeof tool === 'number' ? { tokens: tool, chars: tool * CHARS_PER_TOKEN } : tool;
      this.push({ role: 'tool', tokens, chars, turn: this.turnNo, step: this.stepNo, answers: ids[n]! });
    });
    return this;
  }

  /** `count` steps with the same shape. */
  steps(count: number, tools: readonly ToolSpec[] = [], assistantTokens = 60): this {
    for (let i = 0; i < count; i++) this.step(tools, assistantTokens);
    return this;
  }

  /** Seq the next entry will get. */
  get seq(): number {
    return this.nextSeq;
  }

  build(): LedgerEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  private push(entry: Omit<LedgerEntry, 'seq'>): void {
    this.entries.push({ seq: this.nextSeq++, ...entry });
  }
}

/** Resolved settings for a window, throwing on a bad combination (tests choose valid ones). */
export function settingsFor(contextWindow: number, partial: Record<string, unknown> = {}): ResolvedCompactionSettings {
  return resolveCompactionSettings(contextWindow, partial);
}

/**
 * The OpenAI rule: every assistant message that declares tool calls is followed directly by exactly
 * one tool message per declared id, and every tool message answers a call declared just before it.
 */
export function orphanProblem(ledger: readonly LedgerEntry[]): string | undefined {
  for (let i = 0; i < ledger.length; i++) {
    const entry = ledger[i]!;
    if (entry.role === 'tool') {
      // Walk back over sibling tool results to the declaring message.
      let j = i - 1;
      while (j >= 0 && ledger[j]!.role === 'tool') j--;
      const owner = ledger[j];
      if (!owner || owner.role !== 'assistant' || !entry.answers || !(owner.declares ?? []).includes(entry.answers)) {
        return `tool seq ${entry.seq} answers ${entry.answers} which the message before it does not declare`;
      }
    }
    if (entry.role === 'assistant' && entry.declares && entry.declares.length > 0) {
      const answered: string[] = [];
      for (let j = i + 1; j < ledger.length && ledger[j]!.role === 'tool'; j++) answered.push(ledger[j]!.answers ?? '?');
      const want = [...entry.declares].sort().join(',');
      if ([...answered].sort().join(',') !== want) {
        return `assistant seq ${entry.seq} declares [${want}] but is followed by answers [${answered.join(',')}]`;
      }
    }
  }
  return undefined;
}

/** Pinned entries of `before` are all in `after`, first, in the same order. */
export function pinnedProblem(before: readonly LedgerEntry[], after: readonly LedgerEntry[]): string | undefined {
  const want = before.filter((entry) => entry.pinned).map((entry) => entry.seq);
  const got = after.slice(0, want.length).map((entry) => entry.seq);
  if (want.join(',') !== got.join(',')) return `pinned [${want}] became [${got}]`;
  if (after.slice(want.length).some((entry) => entry.pinned)) return 'a pinned entry appears after the leading ones';
  return undefined;
}

/** Number of unpinned steps: truncation may drop all but the newest. */
export function droppableSteps(ledger: readonly LedgerEntry[]): number {
  return Math.max(0, stepSpans(ledger, 0).length - 1);
}

/** Sum of entry tokens. */
export function sumTokens(ledger: readonly LedgerEntry[]): number {
  return ledger.reduce((total, entry) => total + entry.tokens, 0);
}
