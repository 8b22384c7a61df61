/**
 * The session memory block (DESIGN §5 "Session memory"): built by agentd from the stored
 * transcript at each summary compaction and truncation, without a model, so the user's words and
 * the artifact trail survive whatever the summarizer keeps, or when none works. Pure over the rows
 * it is given; the storeSessionMemory activity reads them from the store.
 */
import { countTokens } from 'gpt-tokenizer';
import { memoryMessageHeader, isMemoryMessage } from '../model/memoryFormat';
import type { ChatMessage } from '../model/messages';
import { isNotice } from '../model/noticeFormat';
import { isSummaryMessage } from '../model/summaryFormat';
import { fromSeqRuns, toSeqRuns, type SeqRun } from '../policy/seqRuns';
import type { StoredMessage } from '../store/transcriptStore';

/** Share of the budget the verbatim user messages may take; the artifact trail gets the rest. */
const USER_MESSAGES_SHARE = 0.5;
/** Words kept of a user message that no longer fits verbatim. */
const FIRST_WORDS = 12;
/** Distinct commands kept (a command run again and again, with results alike, is one). */
const COMMANDS_KEPT = 10;
/** Characters of a command's result line kept. */
const RESULT_CHARS = 120;
const FAILURES_KEPT = 8;
const ERROR_LINES_PER_FAILURE = 4;
const LINE_CHARS = 200;
const LISTED_NAMES_KEPT = 60;
const RUNS_SHOWN = 20;
/** A line of a failing result worth keeping: what test runners, compilers and shells print on failure. */
const ERROR_LINE = /\b(error|errors|failed|failure|fail|failing|exception|traceback|assert\w*|panic|fatal|not ok|denied|cannot|undefined)\b|✗|✘/i;
/** Tools that change a file named by a `path` argument (built-in `write_file`, and user or MCP edit tools). */
const WRITES = /write|edit|create|patch|append|replace|move|rename|delete/i;

export interface SessionMemoryInput {
  /** Every stored row of the session, in seq order. */
  readonly rows: readonly StoredMessage[];
  /** The last pinned seq (the task): user messages after it are quoted. */
  readonly taskSeq: number;
  /** Original seqs the new summary covers: they left the context. */
  readonly summarized: readonly SeqRun[];
  /** Original seqs still in the context after the compaction (pinned and tail). */
  readonly kept: readonly SeqRun[];
  /** Largest block, in tokens (the plan reserved it). */
  readonly budgetTokens: number;
}

interface CallFacts {
  readonly seq: number;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

interface ToolFacts {
  readonly call: CallFacts;
  readonly resultSeq: number;
  readonly output: string;
  readonly isError: boolean;
}

/** The memory message's text, within `budgetTokens`: header and "what left" always, user messages up to half the rest, then the trail. */
export function buildSessionMemory(input: SessionMemoryInput): string {
  const originals = input.rows.filter((row) => row.meta.kind === undefined);
  const throughSeq = originals.at(-1)?.seq ?? input.taskSeq;
  const header = memoryMessageHeader(throughSeq);
  const left = leftSection(originals, input);
  let remaining = input.budgetTokens - countTokens(header) - countTokens(left.join('\n')) - 8;

  const users = userMessages(originals, input.taskSeq);
  const userBudget = Math.max(0, Math.floor(remaining * USER_MESSAGES_SHARE));
  const userLines = fitUserMessages(users, userBudget);
  remaining -= countTokens(userLines.join('\n'));

  const tools = toolFacts(originals);
  const trail = [
    { title: '## Files written or edited (path, last seq, size)', lines: writtenFiles(tools) },
    { title: '## Errors in failing tool results (newest first)', lines: failureLines(tools) },
    { title: '## Commands, newest first (exit status and last output line; runs alike counted once)', lines: commandLines(tools) },
    { title: '## Files read or listed (newest first)', lines: readFiles(tools) },
  ];
  return [header, '', ...[userLines, ...fitTrail(trail, remaining)].flatMap((lines) => (lines.length > 0 ? [...lines, ''] : [])), ...left].join('\n');
}

function moreLine(omitted: number): string {
  return `- … ${omitted} more between (search_transcript finds them), and the oldest:`;
}
/** What a "… N more" line costs at most (and its newline). */
const MORE_LINE_TOKENS = countTokens(moreLine(99_999)) + 1;

/**
 * The trail sections within `budget`: each may first take an equal share, so a long one (a file
 * written at every step) cannot starve the others, and what a section does not need goes to the
 * ones after it that do. A section cut short keeps its newest lines and its oldest one, as a view
 * keeps a head and a tail: the first file written or command run often matters as much as the last.
 */
function fitTrail(trail: ReadonlyArray<{ title: string; lines: readonly string[] }>, budget: number): string[][] {
  const present = trail.filter((section) => section.lines.length > 0);
  const costs = present.map((section) => section.lines.map((line) => countTokens(line) + 1));
  const needs = costs.map((lineCosts) => lineCosts.reduce((total, cost) => total + cost, 0));
  const titles = present.reduce((total, section) => total + countTokens(section.title) + 1, 0);
  const share = Math.floor(Math.max(0, budget - titles) / Math.max(1, present.length));
  const limits = needs.map((need) => Math.min(need, share));
  let spare = limits.reduce((left, limit) => left - limit, Math.max(0, budget - titles));
  for (const [index, need] of needs.entries()) {
    const extra = Math.min(spare, need - limits[index]!);
    limits[index]! += extra;
    spare -= extra;
  }
  return present.map((section, index) => fitSection(section, costs[index]!, limits[index]!)).filter((lines) => lines.length > 0);
}

/** The section within `limit` tokens: whole, or its newest lines, a "… N more" line and its oldest line. */
function fitSection(section: { title: string; lines: readonly string[] }, costs: readonly number[], limit: number): string[] {
  const { title, lines } = section;
  if (costs.reduce((total, cost) => total + cost, 0) <= limit) return [title, ...lines];
  let room = limit - costs[costs.length - 1]! - MORE_LINE_TOKENS;
  if (room < 0) return [];
  const newest: string[] = [];
  for (let index = 0; index < lines.length - 1 && costs[index]! <= room; index++) {
    newest.push(lines[index]!);
    room -= costs[index]!;
  }
  const omitted = lines.length - 1 - newest.length;
  return [title, ...newest, moreLine(omitted), lines[lines.length - 1]!];
}

/** What left the context and how to get it back: always there, whatever the budget. */
function leftSection(originals: readonly StoredMessage[], input: SessionMemoryInput): string[] {
  const summarized = new Set(fromSeqRuns(input.summarized));
  const kept = new Set(fromSeqRuns(input.kept));
  const truncated = originals.map((row) => row.seq).filter((seq) => !summarized.has(seq) && !kept.has(seq));
  return [
    '## What left the context, and how to get it back',
    ...(summarized.size > 0 ? [`- Summarized (the summary below stands for them): seqs ${runsText(toSeqRuns([...summarized].sort((a, b) => a - b)))}.`] : []),
    ...(truncated.length > 0 ? [`- Dropped without a summary (emergency truncation): seqs ${runsText(toSeqRuns(truncated))}.`] : []),
    '- Every original is kept in the transcript store: search_transcript finds words in them and returns seqs with',
    '  snippets; read_output with a seq pages through that original (a tool output, a message or tool-call arguments).',
  ];
}

function userMessages(originals: readonly StoredMessage[], taskSeq: number): StoredMessage[] {
  return originals.filter((row) => {
    const { message } = row;
    return (
      row.seq > taskSeq &&
      message.role === 'user' &&
      !isNotice(message.content) &&
      !isSummaryMessage(message.content) &&
      !isMemoryMessage(message.content)
    );
  });
}

/** Newest first, verbatim while they fit; older ones as one line each, while those fit. */
function fitUserMessages(users: readonly StoredMessage[], budget: number): string[] {
  if (users.length === 0) return [];
  const title = '## Messages from the user after the task (newest first, verbatim)';
  const lines = [title];
  let cost = countTokens(title) + 1;
  let verbatim = true;
  const short: string[] = [];
  for (const row of [...users].reverse()) {
    const text = row.message.content ?? '';
    if (verbatim) {
      const line = `- seq ${row.seq}:\n${indent(text)}`;
      const lineCost = countTokens(line) + 1;
      if (cost + lineCost <= budget) {
        lines.push(line);
        cost += lineCost;
        continue;
      }
      verbatim = false;
    }
    const line = `- seq ${row.seq}: ${firstWords(text)}`;
    const lineCost = countTokens(line) + 1;
    if (cost + lineCost > budget) break;
    short.push(line);
    cost += lineCost;
  }
  if (short.length > 0) lines.push('Older messages, first words only (read_output with the seq shows one whole):', ...short);
  return lines.length > 1 ? lines : [];
}

/** Each tool call of the session with its result, in seq order. */
function toolFacts(originals: readonly StoredMessage[]): ToolFacts[] {
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

function writtenFiles(tools: readonly ToolFacts[]): string[] {
  const files = new Map<string, { seq: number; size?: number; name: string }>();
  for (const { call, isError } of tools) {
    const path = call.args.path;
    if (typeof path !== 'string' || !WRITES.test(call.name) || isError) continue;
    const content = call.args.content;
    files.delete(path);
    files.set(path, { seq: call.seq, name: call.name, ...(typeof content === 'string' ? { size: Buffer.byteLength(content, 'utf8') } : {}) });
  }
  return [...files.entries()]
    .reverse()
    .map(([path, file]) => `- ${path} (${file.name} at seq ${file.seq}${file.size === undefined ? '' : `, ${file.size} bytes`})`);
}

/**
 * Files read, newest first, and each folder listed with every name its listings showed (newest
 * listing first: a file seen once and deleted since is still named, with the seq that saw it).
 */
function readFiles(tools: readonly ToolFacts[]): string[] {
  // Entries in the order first met going back in time: a file read, or a folder and its names.
  const entries: Array<{ line: string } | { path: string; seq: number; names: string[] }> = [];
  const seen = new Set<string>();
  const listed = new Map<string, { path: string; seq: number; names: string[] }>();
  for (const { call, output, isError, resultSeq } of [...tools].reverse()) {
    const path = call.args.path;
    if (typeof path !== 'string' || WRITES.test(call.name)) continue;
    if (call.name === 'list_files' && !isError) {
      let folder = listed.get(path);
      if (!folder) {
        folder = { path, seq: resultSeq, names: [] };
        listed.set(path, folder);
        entries.push(folder);
      }
      for (const name of output.split('\n')) {
        if (name !== '' && !name.startsWith('[') && !folder.names.includes(name)) folder.names.push(name);
      }
    } else if (!seen.has(`${call.name} ${path}`)) {
      seen.add(`${call.name} ${path}`);
      entries.push({ line: `- ${call.name} ${path} (seq ${resultSeq})${isError ? ' failed' : ''}` });
    }
  }
  return entries.map((entry) => {
    if ('line' in entry) return entry.line;
    const more = entry.names.length > LISTED_NAMES_KEPT ? `, … ${entry.names.length - LISTED_NAMES_KEPT} more` : '';
    return `- listed ${entry.path} (newest seq ${entry.seq}): ${entry.names.slice(0, LISTED_NAMES_KEPT).join(', ')}${more}`;
  });
}

/**
 * The newest distinct commands with their exit status and last output line. Runs that differ only
 * in their numbers (the same test command, a loop over cases) count as one, shown by the newest run
 * with how many there were: an agent reruns its checks all session long, and those runs must not
 * push out the one command whose result mattered.
 */
function commandLines(tools: readonly ToolFacts[]): string[] {
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
      return `- seq ${resultSeq}: \`${clip(String(call.args.command))}\` → ${status}${result === '' ? '' : `: ${clip(result, RESULT_CHARS)}`}${more}`;
    });
}

/** The last line a command printed before its status line. */
function resultLine(output: string): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '' && !/^(exit code: |killed )/.test(line));
  return lines.at(-1)?.trim() ?? '';
}

/** Text with every run of digits as `#`: runs of one command that differ only in numbers look alike. */
function shapeOf(text: string): string {
  return text.replace(/\d+/g, '#');
}

function failureLines(tools: readonly ToolFacts[]): string[] {
  const lines: string[] = [];
  for (const { call, output, resultSeq } of tools.filter((fact) => fact.isError).slice(-FAILURES_KEPT).reverse()) {
    const errors = output
      .split('\n')
      .filter((line) => ERROR_LINE.test(line) && !/^exit code:/.test(line))
      .slice(0, ERROR_LINES_PER_FAILURE);
    const what = typeof call.args.command === 'string' ? `\`${clip(call.args.command, 80)}\`` : call.name;
    lines.push(`- seq ${resultSeq} (${what}):${errors.length === 0 ? ` ${clip(output.trim().split('\n').at(-1) ?? '')}` : ''}`);
    for (const line of errors) lines.push(`    ${clip(line.trim())}`);
  }
  return lines;
}

/** The exit code `run_command` prints on its last line, when the output has one. */
function exitCode(output: string): string | undefined {
  const match = /(?:^|\n)exit code: (\S+)\s*$/.exec(output);
  return match?.[1];
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function firstWords(text: string): string {
  const words = text.split(/\s+/).filter((word) => word !== '');
  return clip(words.slice(0, FIRST_WORDS).join(' ')) + (words.length > FIRST_WORDS ? ' …' : '');
}

function clip(text: string, chars = LINE_CHARS): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length <= chars ? line : `${line.slice(0, chars)}…`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** Runs as text; a long list keeps its first and last runs (search_transcript still finds the rest). */
function runsText(runs: readonly SeqRun[]): string {
  if (runs.length === 0) return 'none';
  const text = (run: SeqRun): string => (run[0] === run[1] ? `${run[0]}` : `${run[0]}-${run[1]}`);
  if (runs.length <= RUNS_SHOWN) return runs.map(text).join(', ');
  const half = RUNS_SHOWN / 2;
  return [...runs.slice(0, half).map(text), `… ${runs.length - RUNS_SHOWN} more runs …`, ...runs.slice(-half).map(text)].join(', ');
}

/** The memory as the message the context carries. */
export function sessionMemoryMessage(text: string): ChatMessage {
  return { role: 'user', content: text };
}
