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
