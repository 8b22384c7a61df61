/**
 * The `json` summarizer's shape: the facts as one JSON object and no Markdown, as a model asked for
 * structured output answers; and its reader, so a later summary merges it and the script finds
 * where the work stands in it.
 */
import { z } from 'zod';
import type { SummaryProgress } from './summaryParts';
import type { CarriedFacts, SummaryFacts } from './summaryStyles';

const JsonSummarySchema = z.object({
  goal: z.string(),
  constraints: z.array(z.string()),
  progress: z.object({
    lastStep: z.number().int().nonnegative().nullable(),
    highestStep: z.number().int().nonnegative().nullable(),
    toolCalls: z.number().int().nonnegative(),
  }),
  filesTouched: z.array(z.string()),
  olderFilesNotListed: z.number().int().nonnegative(),
  finished: z.boolean(),
  nextStep: z.number().int().positive().nullable(),
});
type JsonSummary = z.infer<typeof JsonSummarySchema>;

/** Pretty-printed, as such models usually answer; no code fence around it. */
export function jsonSummary(facts: SummaryFacts): string {
  const lastStep = facts.progress.lastStep ?? null;
  const summary: JsonSummary = {
    goal: facts.goal,
    constraints: [...facts.constraints],
    progress: { lastStep, highestStep: facts.progress.highestStep ?? null, toolCalls: facts.progress.toolCalls ?? 0 },
    filesTouched: [...facts.files],
    olderFilesNotListed: facts.droppedFiles,
    finished: facts.finished,
    nextStep: facts.finished || lastStep === null ? null : lastStep + 1,
  };
  return JSON.stringify(summary, null, 2);
}

/**
 * The object written by `jsonSummary`, found at the first line that opens with `{` (a summary
 * message in the context has agentd's header line before it); undefined for any other text.
 */
function parseJsonSummary(text: string): JsonSummary | undefined {
  const start = text.search(/^\{/m);
  if (start < 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start));
  } catch {
    return undefined;
  }
  const parsed = JsonSummarySchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function progressOf(summary: JsonSummary): SummaryProgress {
  const { lastStep, highestStep, toolCalls } = summary.progress;
  return { ...(lastStep === null ? {} : { lastStep }), ...(highestStep === null ? {} : { highestStep }), toolCalls };
}

/** Where the work stands, from a JSON summary; undefined when the text is not one. */
export function jsonSummaryProgress(text: string): SummaryProgress | undefined {
  const summary = parseJsonSummary(text);
  return summary === undefined ? undefined : progressOf(summary);
}

/** The facts of a JSON summary; undefined when the text is not one. */
export function readJsonSummary(text: string): CarriedFacts | undefined {
  const summary = parseJsonSummary(text);
  if (summary === undefined) return undefined;
  return { goal: summary.goal, constraints: summary.constraints, files: summary.filesTouched, progress: progressOf(summary) };
}
