/** The instruction that asks the session's own model for a compaction summary. */
import { SUMMARIZE_INSTRUCTION_HEAD, SUMMARY_SECTIONS, summaryRangeLine, type SummaryRange } from '../model/summaryFormat';

/**
 * Sent as the last user message. After the session's previous request repeated word for word it
 * names the `range` of messages to summarize; after pinned messages and a region alone (a request
 * that could not repeat the previous one) it asks for everything above. The model answers in
 * Markdown with one `## ` heading per section, in order.
 */
export function summarizeInstruction(budgetTokens: number, range?: SummaryRange): string {
  return [
    SUMMARIZE_INSTRUCTION_HEAD,
    ...(range ? [summaryRangeLine(range)] : []),
    'Another instance of you will continue this work from your summary alone: the messages above will be',
    'replaced by it. Do not call tools. Keep file paths, commands, test names, error messages and every',
    "constraint the user gave exactly as written. If an earlier summary is above, merge it: keep what still",
    `holds, drop what is done or wrong. Stay under ${budgetTokens} tokens. Use exactly these sections:`,
    ...SUMMARY_SECTIONS.map((section) => `## ${section}`),
  ].join('\n');
}
