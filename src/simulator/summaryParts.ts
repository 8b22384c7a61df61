/** The parts of a summary the simulator reads back: `## Heading` sections, their bullets, and progress lines. */

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

const HEADING = /^##\s+(.+?)\s*$/;

/** The Progress section's lines; `unknown` where the script's call ids gave no step. */
export function progressLines(progress: SummaryProgress): string[] {
  return (Object.keys(PROGRESS_LABELS) as ProgressKey[]).map(
    (key) => `- ${PROGRESS_LABELS[key]}: ${progress[key] ?? 'unknown'}`,
  );
}

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

/** Reads back what `progressLines` wrote; a missing or `unknown` value is left undefined. */
export function summaryProgress(text: string): SummaryProgress {
  const lines = summarySections(text).get('Progress') ?? [];
  const progress: { -readonly [Key in ProgressKey]?: number } = {};
  for (const key of Object.keys(PROGRESS_LABELS) as ProgressKey[]) {
    const prefix = `- ${PROGRESS_LABELS[key]}: `;
    const value = lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);
    if (value !== undefined && /^\d+$/.test(value)) progress[key] = Number(value);
  }
  return progress;
}
