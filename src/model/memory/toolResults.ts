/** Each tool call of a stored session paired with its result, as the memory's sections read them. Pure. */
import type { MemoryRow } from './memoryRow';
import { clip } from './text';

export interface CallFacts {
  readonly seq: number;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

export interface ToolFacts {
  readonly call: CallFacts;
  readonly resultSeq: number;
  readonly output: string;
  /** The tool said it failed, or the command exited non-zero. */
  readonly isError: boolean;
}

/** Each tool call of the session with its result, in seq order. */
export function toolFacts(originals: readonly MemoryRow[]): ToolFacts[] {
  const calls = new Map<string, CallFacts>();
  const facts: ToolFacts[] = [];
  for (const row of originals) {
    const { message } = row;
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) calls.set(call.id, { seq: row.seq, name: call.function.name, args: parseArgs(call.function.arguments) });
    } else if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id);
      if (!call) continue;
      const code = exitCode(message.content);
      const failed = row.meta.isError === true || (code !== undefined && code !== '0');
      facts.push({ call, resultSeq: row.seq, output: message.content, isError: failed });
    }
  }
  return facts;
}

/** The exit code `run_command` prints on its last line, when the output has one. */
export function exitCode(output: string): string | undefined {
  const match = /(?:^|\n)exit code: (\S+)\s*$/.exec(output);
  return match?.[1];
}

/** The line `run_command` ends its output with when the command exited (`builtin/runCommand.ts`). */
export const EXIT_LINE = /^exit code: /;
/** Any status line `run_command` ends with: the exit, or `killed …` on a timeout or a signal. */
export const STATUS_LINE = /^(?:exit code: |killed )/;

/** The last non-blank line of `output` that `skipped` does not match, trimmed; empty when there is none. */
export function lastLine(output: string, skipped: RegExp): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '' && !skipped.test(line));
  return lines.at(-1)?.trim() ?? '';
}

/** How a call is named in a memory line: its command, or the tool's name. */
export function callLabel(call: CallFacts, chars = 80): string {
  return typeof call.args.command === 'string' ? `\`${clip(call.args.command, chars)}\`` : call.name;
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
