/**
 * Whether the model's answer to a summarization request is taken as the summary
 * (DESIGN §5 "Any model's summary counts"): any non-empty answer shorter than what it replaces, whatever its
 * headings, except a refusal. Pure string and number checks, shared by the summarize activity and
 * its tests.
 */

/** Why an answer is not taken; each one would repeat identically if the same request were sent again. */
export const SummaryRejection = {
  /** Nothing but whitespace came back. */
  empty: 'empty',
  /** A short answer that declines the task instead of summarizing (see `looksLikeRefusal`). */
  refusal: 'refusal',
  /** The summary has at least as many tokens as what it replaces: compacting would grow the context. */
  notShorter: 'not_shorter',
} as const;
export type SummaryRejection = (typeof SummaryRejection)[keyof typeof SummaryRejection];

/**
 * Longest answer (characters, trimmed) that can count as a refusal. Refusals are one or two
 * sentences; a real summary that happens to say "I can't" somewhere is far longer than this.
 */
export const REFUSAL_MAX_CHARS = 400;

/**
 * Phrases models decline with. Anchored at the start for apologies, anywhere for the "can't help"
 * family, so "Sorry, I cannot assist with that request." and "As an AI, I'm unable to…" both match.
 */
const REFUSAL_OPENINGS = /^(?:i['’]m sorry|i am sorry|sorry|i apologi[sz]e|unfortunately|as an ai)\b/i;
const REFUSAL_PHRASES =
  /\b(?:can(?:no|['’])t|cannot|won['’]t|will not|(?:am|['’]m) (?:unable|not able)|unable)\s+(?:to\s+)?(?:help|assist|comply|do that|provide|fulfil|fulfill|summari[sz]e)/i;

/**
 * A refusal is short (at most REFUSAL_MAX_CHARS) and either opens with an apology or says it cannot
 * help, assist, comply or summarize. Both conditions, so a summary quoting an error message such as
 * "cannot provide credentials" is not mistaken for one.
 */
export function looksLikeRefusal(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > REFUSAL_MAX_CHARS) return false;
  return REFUSAL_PHRASES.test(trimmed) || (REFUSAL_OPENINGS.test(trimmed) && /\b(?:can(?:no|['’])t|cannot|unable|won['’]t)\b/i.test(trimmed));
}

export type SummaryVerdict =
  | { readonly accepted: true; readonly text: string }
  | { readonly accepted: false; readonly reason: SummaryRejection; readonly message: string };

/**
 * Takes the answer as written (trimmed), or says why not. `summaryTokens` and `replacedTokens` are
 * counted the same way (whole messages, framing included), so the comparison is fair.
 */
export function judgeSummary(text: string, summaryTokens: number, replacedTokens: number): SummaryVerdict {
  const trimmed = text.trim();
  if (trimmed === '') return { accepted: false, reason: SummaryRejection.empty, message: 'the model answered an empty summary' };
  if (looksLikeRefusal(trimmed)) {
    // The answer itself stays in the store: this message reaches workflow history and the notices.
    return { accepted: false, reason: SummaryRejection.refusal, message: `the model refused to summarize (a ${trimmed.length}-character refusal)` };
  }
  if (summaryTokens >= replacedTokens) {
    return {
      accepted: false,
      reason: SummaryRejection.notShorter,
      message: `the summary (${summaryTokens} tokens) is not shorter than what it replaces (${replacedTokens} tokens)`,
    };
  }
  return { accepted: true, text: trimmed };
}
