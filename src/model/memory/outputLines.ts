/**
 * The memory section of what tool outputs said before they left the context: their errors,
 * failing checks and printed values, wherever in the output they were, newest result first. Pure.
 */
import { isWriteTool } from './fileTrail';
import { byImportance, tellingLines } from './tellingLines';
import { clip, sameness, shapeOf } from './text';
import { EXIT_LINE, callLabel, exitCode, lastLine, type ToolFacts } from './toolResults';

/** Telling lines kept of one output: a run of 200 failing cases must not fill the section alone. */
const PER_OUTPUT = 6;
const TELLING_CHARS = 160;
/**
 * Tools whose output is a file's or the transcript's own text, or a listing: what they show is in
 * the file trail or the store, and "wrote 512 bytes to notes/…" after every write would crowd out
 * what commands printed.
 */
const NOT_STATEMENTS = new Set(['list_files', 'read_file', 'read_output', 'search_transcript']);

/**
 * One entry per result that told something: `- seq N (command, status):` and its telling lines
 * (errors and failing checks first, then values, in output order). A line printed by an older
 * result too, or one that differs from it only in its numbers (the same metric measured again, the
 * same check failing on every rerun), is shown only with the newest: the newest value is the one
 * that holds. A failing result with no telling line at all keeps its last line, so a failure is
 * never silent.
 */
export function outputLines(tools: readonly ToolFacts[]): string[] {
  const entries: string[] = [];
  const shown = new Set<string>();
  for (const { call, output, resultSeq, isError } of [...tools].reverse()) {
    if (isWriteTool(call.name) || NOT_STATEMENTS.has(call.name)) {
      if (isError) entries.push(`- seq ${resultSeq} (${callLabel(call)}, failed): ${clip(failureLine(output), TELLING_CHARS)}`);
      continue;
    }
    const lines: string[] = [];
    const telling = tellingLines(output);
    for (const line of byImportance(telling)) {
      const same = shapeOf(sameness(line.text));
      if (shown.has(same)) continue;
      shown.add(same);
      lines.push(`    ${clip(line.text, TELLING_CHARS)}`);
      if (lines.length >= PER_OUTPUT) break;
    }
    const code = exitCode(output);
    const status = code !== undefined ? `exit code ${code}` : isError ? 'failed' : 'ok';
    if (lines.length > 0) entries.push([`- seq ${resultSeq} (${callLabel(call)}, ${status}):`, ...lines].join('\n'));
    else if (isError && telling.length === 0) entries.push(`- seq ${resultSeq} (${callLabel(call)}, ${status}): ${clip(failureLine(output), TELLING_CHARS)}`);
  }
  return entries;
}

/** A failing output's last line; a `killed after …` status stays, because it is why the command failed. */
function failureLine(output: string): string {
  return lastLine(output, EXIT_LINE);
}
