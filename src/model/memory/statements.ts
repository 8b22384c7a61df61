/**
 * The statements in user and agent prose worth keeping after the message leaves the context: what
 * must or must not be done, what was decided, and what was found out (names, values, causes). Pure;
 * linear in the text (each sentence is tested on at most `SCANNED_CHARS` characters).
 */
import { LINE_CHARS } from './text';

export const StatementKind = {
  /** "never …", "don't …", "must …", "only …", "keep …". */
  constraint: 'constraint',
  /** "I'll …", "decided …", "we use …", "instead of …". */
  decision: 'decision',
  /** "the bug is in X", "root cause: …", "X is Y" about a named thing, numbers with units, versions. */
  finding: 'finding',
} as const;
export type StatementKind = (typeof StatementKind)[keyof typeof StatementKind];

export interface Statement {
  readonly kind: StatementKind;
  /** The sentence, or the part of a long one around what made it a statement, on one line. */
  readonly text: string;
}

const SCANNED_CHARS = 600;

/**
 * Constraints as users write them in task follow-ups and as agents restate them: prohibitions and
 * obligations with or without a "CONSTRAINT:" prefix, usually mid-paragraph ("…and please don't
 * touch X while you are at it…"), scope limits ("only …", "keep … as it is", "at most …") and
 * preferences stated as a contrast ("use tabs, not spaces").
 */
const CONSTRAINT = /\b(?:never|don'?t|do not|must(?:n'?t| not)?|should(?:n'?t| not)|shall not|may not|cannot|can'?t|only|always|keep|avoid|without|make sure|ensure|required?|at (?:most|least)|no more than|stays?)\b|^constraint:|\b(?:use|prefer)\b[^.]{0,60}?,?\s+not\s+\w/i;

/**
 * Decisions in the first person or as a plan, as coding agents state them before acting ("I'll
 * switch to…", "Decided to…", "We use…", "Going with…", "instead of…", "The fix is…").
 */
const DECISION = /\b(?:I'll|I will|I'm going to|we'll|we will|let's|decided|decision|we use|we're using|(?:I|we) chose|going with|switch(?:ing|ed)? to|instead of|the (?:plan|fix|approach) is|plan:|approach:)\b/i;
/** Narration of the next look ("I'll check the file", "Let me read…"): a decision about nothing that lasts. */
const NARRATION = /^(?:\W*)(?:now,? |first,? |next,? |ok(?:ay)?,? )?(?:I'll|I will|let me|let's|I'm going to)\s+(?:start by\s+|now\s+|first\s+)?(?:look|check|read|open|search|explore|examine|view|see|inspect|run|list|find|investigate|take a look|understand|verify|try|re-?read|go on)\b/i;

/**
 * Findings: causes named as agents report them in SWE-agent and Claude Code style transcripts ("the
 * bug is in…", "root cause: …", "turns out…", "is caused by…", "because…"), and sentences that give a
 * named thing a value: an identifier (backticked, a path, host:port, snake_case, camelCase, CONSTANT_CASE)
 * with "is/are/was/=", numbers with units, versions.
 */
const CAUSE = /\b(?:root cause|the (?:bug|issue|problem|culprit|cause|error|failure|reason|leak|regression) (?:is|was|lies|comes|seems)|turns out|found (?:it|that|the)|is caused by|because|due to|it seems|apparently|the answer is)\b/i;
const IDENTIFIER = /`[^`]+`|\b[\w.-]+\.[a-z]+:\d{2,5}\b|\b[A-Z][A-Za-z]+-\d+\b|\b[\w.-]+\/[\w./-]+|\b\w+\.(?:ts|js|tsx|jsx|py|go|rs|java|rb|c|h|cpp|json|ya?ml|toml|md|sql|sh)\b|\b[a-z]+_[a-z_\d]+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][A-Z\d]*_[A-Z\d_]+\b/;
const VALUE_OF = /\b(?:is|are|was|were|equals|returns|means)\b|[^=!<>]=[^=]/;
const NUMBER_WITH_UNIT = /\b\d[\d,]*(?:\.\d+)?\s?(?:ms|s|seconds|minutes|hours|KB|MB|GB|KiB|MiB|GiB|bytes|%|ops\/s|req\/s|rps|tokens|lines|files|tests|rows|users|items)\b/;
const VERSION = /\bv?\d+\.\d+\.\d+\b|\bversion \d+(?:\.\d+)*/i;

/** A named thing reported broken ("test X fails", "CI is red on X", "X crashes"), as users report bugs. */
const BROKEN = /\b(?:fail\w*|broken|breaks|crash\w*|regress\w*|flaky|red|bug)\b/i;

/** Who wrote the prose: a user writes few sentences and names things on purpose; an agent narrates. */
export type Speaker = 'user' | 'agent';

/** The kind of statement a sentence makes, or undefined when it states nothing worth keeping. */
export function statementKind(sentence: string, speaker: Speaker): StatementKind | undefined {
  const text = sentence.slice(0, SCANNED_CHARS);
  if (NARRATION.test(text)) return undefined;
  // A decision first: "I'll keep X" is the agent choosing, though "keep" also marks constraints.
  if (DECISION.test(text)) return StatementKind.decision;
  // A cause next: "the bug is that it never resets" reports, it does not forbid.
  if (CAUSE.test(text)) return StatementKind.finding;
  if (CONSTRAINT.test(text)) return StatementKind.constraint;
  const named = IDENTIFIER.test(text);
  if ((named && (VALUE_OF.test(text) || BROKEN.test(text))) || NUMBER_WITH_UNIT.test(text) || VERSION.test(text)) return StatementKind.finding;
  // A user's sentence that names a file, a test, a ticket or a release is there to be remembered.
  if (named && speaker === 'user') return StatementKind.finding;
  return undefined;
}

/** The statements of a message, in order; code blocks and simulator directives are not prose. */
export function statementsOf(text: string, speaker: Speaker): Statement[] {
  const statements: Statement[] = [];
  for (const sentence of sentencesOf(text)) {
    const kind = statementKind(sentence, speaker);
    if (kind !== undefined) statements.push({ kind, text: shortened(sentence, kind) });
  }
  return statements;
}

/** Sentences of prose: fenced code, indented code and `[sim …]` lines left out. */
function sentencesOf(text: string): string[] {
  const sentences: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || /^(?: {4}|\t)/.test(line) || /^\s*\[sim\b/.test(line)) continue;
    const prose = line.replace(/\[sim\b[^\]]*\]/g, ' ').replace(/^\s*(?:[-*>]|\d+[.)])\s+/, '').trim();
    if (prose === '') continue;
    // A sentence ends at . ! ? or ; followed by a space (not inside a path or a version number).
    for (const sentence of prose.split(/(?<=[.!?;])\s+/)) if (sentence.trim() !== '') sentences.push(sentence.trim());
  }
  return mergeShort(sentences);
}

/** "Found it: …" style fragments glue onto the next sentence rather than stand alone. */
function mergeShort(sentences: readonly string[]): string[] {
  const merged: string[] = [];
  for (const sentence of sentences) {
    const last = merged[merged.length - 1];
    if (last !== undefined && last.length < 12) merged[merged.length - 1] = `${last} ${sentence}`;
    else merged.push(sentence);
  }
  return merged;
}

/** A long sentence cut around what made it a statement, so the line stays short and keeps the point. */
function shortened(sentence: string, kind: StatementKind): string {
  if (sentence.length <= LINE_CHARS) return sentence;
  const rule = kind === StatementKind.constraint ? CONSTRAINT : kind === StatementKind.decision ? DECISION : CAUSE;
  const at = Math.max(0, rule.exec(sentence)?.index ?? 0);
  let start = Math.max(0, at - 40);
  while (start > 0 && !/\s/.test(sentence[start - 1]!)) start -= 1;
  const end = Math.min(sentence.length, start + LINE_CHARS);
  return `${start > 0 ? '…' : ''}${sentence.slice(start, end).trim()}${end < sentence.length ? '…' : ''}`;
}
