/** The parts of a summary the simulator reads back: Markdown sections, their bullets, and where the work stands. */
import { jsonSummaryProgress } from './summaryJson';

/** What the Progress section records, so a later summary (or the script) can carry on from it. */
export interface SummaryProgress {
  /** Step of the newest tool call the summary covers. */
  readonly lastStep?: number;
  readonly highestStep?: number;
  /** Tool calls covered so far, earlier summaries included. */
  readonly toolCalls?: number;
}

const PROGRESS_LABELS = { lastStep: 'Last step', highestStep: 'Highest step', toolCalls: 'Tool calls' } as const;
type ProgressKey = keyof typeof PROGRESS_LABELS;

/** Any Markdown heading level: a model that picks its own structure picks its own levels too. */
const HEADING = /^#{1,6}\s+(.+?)\s*$/;

/** The Progress section's lines; `unknown` where the script's call ids gave no step. */
export function progressLines(progress: SummaryProgress): string[] {
  return (Object.keys(PROGRESS_LABELS) as ProgressKey[]).map(
    (key) => `- ${PROGRESS_LABELS[key]}: ${progress[key] ?? 'unknown'}`,
  );
}

/**
 * The same progress as one sentence, for summaries without a Progress section; `summaryProgress`
 * reads it back.
 */
export function progressSentence(progress: SummaryProgress): string {
  const calls = `${progress.toolCalls ?? 0} tool calls so far`;
  if (progress.lastStep === undefined) return `No step taken yet (${calls}).`;
  return `Stopped after step ${progress.lastStep} (highest step ${progress.highestStep ?? progress.lastStep}, ${calls}).`;
}

const PROGRESS_SENTENCE = /Stopped after step (\d+) \(highest step (\d+), (\d+) tool calls so far\)/;
const NO_STEP_SENTENCE = /No step taken yet \((\d+) tool calls so far\)/;

/** The non-blank lines under each `## Heading`, trimmed; text before the first heading is ignored. */
export function summarySections(text: string): ReadonlyMap<string, readonly string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const heading = HEADING.exec(line);
    if (heading !== null) {
      current = [];
      sections.set(heading[1] ?? '', current);
    } else if (current !== undefined && line !== '') {
      current.push(line);
    }
  }
  return sections;
}

/** The items of a section's `- ` bullets, other lines left out. */
export function bulletItems(lines: readonly string[] | undefined): string[] {
  return (lines ?? []).filter((line) => line.startsWith('- ')).map((line) => line.slice(2).trim());
}

/**
 * Reads back what `progressLines` (or, without a Progress section, `progressSentence` or the JSON
 * summary) wrote; a missing or `unknown` value is left undefined.
 */
export function summaryProgress(text: string): SummaryProgress {
  const lines = summarySections(text).get('Progress');
  if (lines === undefined) return progressFromSentence(text);
  const progress: { -readonly [Key in ProgressKey]?: number } = {};
  for (const key of Object.keys(PROGRESS_LABELS) as ProgressKey[]) {
    const prefix = `- ${PROGRESS_LABELS[key]}: `;
    const value = lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);
    if (value !== undefined && /^\d+$/.test(value)) progress[key] = Number(value);
  }
  return progress;
}

function progressFromSentence(text: string): SummaryProgress {
  const found = PROGRESS_SENTENCE.exec(text);
  if (found !== null) return { lastStep: Number(found[1]), highestStep: Number(found[2]), toolCalls: Number(found[3]) };
  const none = NO_STEP_SENTENCE.exec(text);
  if (none !== null) return { toolCalls: Number(none[1]) };
  return jsonSummaryProgress(text) ?? {};
}
