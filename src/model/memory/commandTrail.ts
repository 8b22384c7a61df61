/** The memory's command trail: the newest distinct commands with exit status and last output line. Pure. */
import { LINE_CHARS, clip, shapeOf } from './text';
import { STATUS_LINE, callLabel, exitCode, lastLine, type ToolFacts } from './toolResults';

/** Distinct commands kept (a command run again and again, with results alike, is one). */
const COMMANDS_KEPT = 10;
/** Characters of a command's result line kept. */
const RESULT_CHARS = 120;

/**
 * The newest distinct commands with their exit status and last output line. Runs that differ only
 * in their numbers (the same test command, a loop over cases) count as one, shown by the newest run
 * with how many there were: an agent reruns its checks all session long, and those runs must not
 * push out the one command whose result mattered.
 */
export function commandLines(tools: readonly ToolFacts[]): string[] {
  const groups = new Map<string, { newest: ToolFacts; runs: number }>();
  for (const fact of tools) {
    if (typeof fact.call.args.command !== 'string') continue;
    const key = `${shapeOf(fact.call.args.command)}\n${shapeOf(resultLine(fact.output))}\n${exitCode(fact.output) ?? ''}`;
    const group = groups.get(key);
    groups.delete(key);
    groups.set(key, { newest: fact, runs: (group?.runs ?? 0) + 1 });
  }
  return [...groups.values()]
    .reverse()
    .slice(0, COMMANDS_KEPT)
    .map(({ newest: { call, output, resultSeq, isError }, runs }) => {
      const code = exitCode(output);
      const status = code !== undefined ? `exit code ${code}` : isError ? 'failed' : 'no exit code';
      const result = resultLine(output);
      const more = runs > 1 ? ` (${runs} runs alike)` : '';
      return `- seq ${resultSeq}: ${callLabel(call, LINE_CHARS)} → ${status}${result === '' ? '' : `: ${clip(result, RESULT_CHARS)}`}${more}`;
    });
}

/** The last line a command printed before its status line: the status is shown on its own. */
function resultLine(output: string): string {
  return lastLine(output, STATUS_LINE);
}
