/** The instruction that asks the session's own model for a compaction summary. */
import { SUMMARIZE_INSTRUCTION_HEAD, SUMMARY_SECTIONS } from '../model/summaryFormat';

/**
 * Sent as the last user message after the messages to summarize (the session's system prompt and
 * task come first, exactly as in every other request, so a provider's prompt cache can hit). The
 * model answers in Markdown with one `## ` heading per section, in order.
 */
export function summarizeInstruction(budgetTokens: number): string {
  return [
    SUMMARIZE_INSTRUCTION_HEAD,
    'Another instance of you will continue this work from your summary alone: the messages above will be',
    'replaced by it. Do not call tools. Keep file paths, commands, test names, error messages and every',
    "constraint the user gave exactly as written. If an earlier summary is above, merge it: keep what still",
    `holds, drop what is done or wrong. Stay under ${budgetTokens} tokens. Use exactly these sections:`,
    ...SUMMARY_SECTIONS.map((section) => `## ${section}`),
  ].join('\n');
}
