/**
 * The shape of a compaction summary, shared by the summarize activity that asks for one and the
 * simulator that plays a model writing one. Pure constants and string checks.
 */

/** Fixed sections, in order: what a successor needs to carry on without the original messages. */
export const SUMMARY_SECTIONS = [
  'Goal',
  'Constraints',
  'Progress',
  'Decisions',
  'Files touched',
  'Open problems',
  'Next steps',
] as const;

/** First line of the instruction message that asks the model for a summary. */
export const SUMMARIZE_INSTRUCTION_HEAD = 'CONTEXT CHECKPOINT: write a summary of the conversation so far.';

/** First characters of a summary message in the live context, so people and tools can tell it apart. */
const SUMMARY_MESSAGE_PREFIX = '[agentd summary of earlier work';

export function isSummarizeInstruction(text: string | null | undefined): boolean {
  return typeof text === 'string' && text.startsWith(SUMMARIZE_INSTRUCTION_HEAD);
}

export function isSummaryMessage(text: string | null | undefined): boolean {
  return typeof text === 'string' && text.startsWith(SUMMARY_MESSAGE_PREFIX);
}

/** The first line of the summary message placed in the live context. */
export function summaryMessageHeader(coveredSeqs: number, firstSeq: number, lastSeq: number): string {
  return `${SUMMARY_MESSAGE_PREFIX}: ${coveredSeqs} messages, seqs ${firstSeq}-${lastSeq}; originals are kept in the transcript store]`;
}

/**
 * Which messages of the request a summary replaces, by 1-based position (message 1 is the system
 * prompt). A summary request repeats the session's previous request word for word so a provider's
 * prompt cache serves it; the messages after `last` stay in the context verbatim, and this says so.
 */
export interface SummaryRange {
  readonly first: number;
  readonly last: number;
  /** Messages above the instruction. */
  readonly total: number;
}

const RANGE_LINE = /^Summarize messages (\d+) to (\d+) of the (\d+) messages above\b/m;

/** The instruction's line naming the range; `parseSummaryRange` reads it back. */
export function summaryRangeLine(range: SummaryRange): string {
  const kept = range.total - range.last;
  const after = kept > 0 ? `the ${kept} after them stay in the context word for word after your summary, so do not repeat them` : 'none follow them';
  return `Summarize messages ${range.first} to ${range.last} of the ${range.total} messages above (message 1 is the system prompt); ${after}.`;
}

/** The range an instruction names; undefined for one that names none (it asks for everything above). */
export function parseSummaryRange(instruction: string): SummaryRange | undefined {
  const found = RANGE_LINE.exec(instruction);
  if (!found) return undefined;
  const [first, last, total] = [Number(found[1]), Number(found[2]), Number(found[3])];
  return first >= 1 && first <= last && last <= total ? { first, last, total } : undefined;
}

/** Where `region` stands in `request` (both seqs in context order), when it is one unbroken run of it. */
export function rangeWithin(request: readonly number[], region: readonly number[]): SummaryRange | undefined {
  const start = request.indexOf(region[0] ?? -1);
  if (start < 0 || region.some((seq, offset) => request[start + offset] !== seq)) return undefined;
  return { first: start + 1, last: start + region.length, total: request.length };
}

/** How a summary request was built (DESIGN §5 "Summary requests continue the session"). */
export const SummaryRequestShape = {
  /** The previous request word for word, then the instruction: one request, served from the prompt cache. */
  continued: 'continued',
  /** Pinned messages, the region and the instruction, in one request or in chunks when the region is too big. */
  standalone: 'standalone',
} as const;
export type SummaryRequestShape = (typeof SummaryRequestShape)[keyof typeof SummaryRequestShape];
