/**
 * The scripted autonomous agent behind the simulator: a pure function from the messages of a
 * request to the next assistant reply, so a retried request gets a byte-identical answer.
 */
import type { ChatMessage, ToolCall } from '../model/messages';
import { isMemoryMessage, newestQuotedUserMessage } from '../model/memoryFormat';
import { isNotice } from '../model/noticeFormat';
import { isSummaryMessage } from '../model/summaryFormat';
import { parseViewMarker } from '../model/viewFormat';
import { hashInt, shortHash } from './hash';
import { isSummarizerBehaviour, type ByteRange, type ResolvedSimulatorOptions, type SummarizerBehaviour } from './options';
import { summaryProgress } from './summaryParts';

export type AssistantReply = Extract<ChatMessage, { role: 'assistant' }>;
export type ScriptOptions = Pick<ResolvedSimulatorOptions, 'defaultSteps' | 'followUpSteps' | 'outputBytes' | 'marker'>;

/** agentd's built-in tools, in the order the script cycles through them. */
export const SimTool = {
  listFiles: 'list_files',
  writeFile: 'write_file',
  runCommand: 'run_command',
  readFile: 'read_file',
  readOutput: 'read_output',
  finish: 'finish',
} as const;
export type SimTool = (typeof SimTool)[keyof typeof SimTool];

/** What a `[sim steps=N output=MIN-MAX pace=busy commands=off summarizer=NAME]` directive in a user message asks for. */
export interface Directive {
  readonly steps?: number;
  readonly output?: ByteRange;
  /**
   * `pace=busy`: the usual cycle runs a command at three steps of four (re-reading, and listing
   * after a turn's first, turn into test runs), as an agent in a test-and-fix loop does, so the
   * context grows about three times as fast.
   */
  readonly busy?: boolean;
  /**
   * `commands=off`: the agent never calls run_command (the worker has no sandbox); the cycle's test
   * run becomes a log the agent writes of the same size, so the context grows as it would.
   */
  readonly commandsOff?: boolean;
  /** In the task: how this session's summarization requests are answered. */
  readonly summarizer?: SummarizerBehaviour;
}

/**
 * A tool call a test asked for by name with a `[sim call <tool> <json-args>]` line; a
 * `[sim also <tool> <json-args>]` line adds one more call to the same step (one reply, many calls).
 */
interface ScriptedCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/**
 * The calls of one scripted step, in the order the reply declares them, and what the agent says
 * with them: a `[sim say <text>]` line after a `[sim call …]` line is that step's reply text, so a
 * test can have the agent state a decision or a finding in its own words (`[sim say base64:…]` when
 * the user message must not state it too).
 */
interface ScriptedStep {
  readonly calls: readonly ScriptedCall[];
  readonly say?: string;
}

const DIRECTIVE = /\[sim\b(?!\s+(?:call|also|say)\s)([^\]]*)\]/;
// A whole line, so the JSON arguments may hold brackets of their own.
const SCRIPTED_CALL = /^\s*\[sim\s+(call|also)\s+(\S+)\s+(.*)\]\s*$/gm;
const SCRIPTED_SAY = /^\s*\[sim\s+say\s+(?<said>.*)\]\s*$/gm;
const CALL_ID = /^call_(\d+)_(\d+)_[0-9a-f]{8}$/;

/** Parts that do not parse are ignored: a typo must not crash the scripted agent. */
export function parseDirective(text: string): Directive | undefined {
  const found = DIRECTIVE.exec(text);
  if (found === null) return undefined;
  let steps: number | undefined;
  let output: ByteRange | undefined;
  let summarizer: SummarizerBehaviour | undefined;
  let busy: boolean | undefined;
  let commandsOff: boolean | undefined;
  for (const part of (found[1] ?? '').trim().split(/\s+/)) {
    const stepsMatch = /^steps=(\d+)$/.exec(part);
    if (stepsMatch !== null) steps = Number(stepsMatch[1]);
    const outputMatch = /^output=(\d+)-(\d+)$/.exec(part);
    if (outputMatch !== null) {
      const min = Number(outputMatch[1]);
      const max = Number(outputMatch[2]);
      if (min >= 1 && min <= max) output = { min, max };
    }
    if (part === 'pace=busy') busy = true;
    if (part === 'commands=off') commandsOff = true;
    const summarizerMatch = /^summarizer=(\S+)$/.exec(part);
    if (summarizerMatch !== null && isSummarizerBehaviour(summarizerMatch[1] ?? '')) summarizer = summarizerMatch[1] as SummarizerBehaviour;
  }
  return {
    ...(steps === undefined ? {} : { steps }),
    ...(output === undefined ? {} : { output }),
    ...(summarizer === undefined ? {} : { summarizer }),
    ...(busy === undefined ? {} : { busy }),
    ...(commandsOff === undefined ? {} : { commandsOff }),
  };
}

/**
 * The `[sim call …]` lines of a user message, in order, each a step with the `[sim also …]` lines
 * after it and the text of a `[sim say …]` line among them. A line whose arguments are not a JSON
 * object is left out, as a typo in a directive is elsewhere; an `also` with no step before it
 * starts one.
 */
function parseScriptedCalls(text: string): ScriptedStep[] {
  const steps: Array<{ calls: ScriptedCall[]; say?: string }> = [];
  const lines = [...text.matchAll(SCRIPTED_CALL), ...text.matchAll(SCRIPTED_SAY)].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  for (const found of lines) {
    const last = steps[steps.length - 1];
    const said = found.groups?.said;
    if (said !== undefined) {
      // A `say` line: the text of the step before it; one with no step before it is ignored.
      if (last !== undefined) last.say = saidText(said);
      continue;
    }
    try {
      const args: unknown = JSON.parse(found[3] ?? '');
      if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
        const call = { name: found[2] ?? '', args: args as Record<string, unknown> };
        if (found[1] === 'also' && last !== undefined) last.calls.push(call);
        else steps.push({ calls: [call] });
      }
    } catch {
      // not JSON: ignored like any other malformed directive part
    }
  }
  return steps;
}

/**
 * A `say` text; `base64:<text>` is decoded, so a test can have the agent state a fact that the user
 * message carrying the directive does not itself state.
 */
function saidText(text: string): string {
  return text.startsWith('base64:') ? Buffer.from(text.slice('base64:'.length), 'base64').toString('utf8') : text;
}

/** The step a tool call id was made for, if it is one of the script's ids. */
export function stepOfCallId(id: string): number | undefined {
  const found = CALL_ID.exec(id);
  return found === null ? undefined : Number(found[1]);
}

/**
 * The current turn: from the last user message that opens a turn to the end of the request. A
 * compaction summary is a user message too, but it stands in for earlier steps and opens nothing.
 */
interface Turn {
  readonly userText: string;
  /** Hash of the turn's user message, shared by its call ids and file names. */
  readonly hash: string;
  /** The turn answers the first user message of the conversation: it ends with `finish`. */
  readonly isTask: boolean;
  readonly budget: number;
  readonly output: ByteRange;
  readonly busy: boolean;
  readonly commandsOff: boolean;
  /** Steps 1..n make these calls; the usual cycle of tools takes the steps after them. */
  readonly scripted: readonly ScriptedStep[];
}

function lastIndexWhere<T>(items: readonly T[], test: (item: T) => boolean, before = items.length): number {
  for (let index = Math.min(before, items.length) - 1; index >= 0; index -= 1) {
    if (test(items[index] as T)) return index;
  }
  return -1;
}

function opensTurn(message: ChatMessage): message is Extract<ChatMessage, { role: 'user' }> {
  // agentd's own notices (a workspace failover) and session memory (which quotes earlier user
  // messages, directives included) tell the agent something; they ask for nothing.
  return (
    message.role === 'user' && !isSummaryMessage(message.content) && !isNotice(message.content) && !isMemoryMessage(message.content)
  );
}

/** Where the turn in progress was opened, and by what text. */
interface TurnOpening {
  /** Index of the message the turn's steps follow: its opening user message, or the memory quoting it. */
  readonly index: number;
  readonly text: string;
  readonly isTask: boolean;
}

/**
 * The newest user message that opens a turn. When compaction summarized it away, a model reads it in
 * the session memory's verbatim quote, as a real one would; failing that, the pinned task is all that
 * is left, and the turn is taken to be the task's (its budget, its finish).
 */
function findOpening(messages: readonly ChatMessage[]): TurnOpening | undefined {
  const userIndex = lastIndexWhere(messages, opensTurn);
  if (userIndex < 0) return undefined;
  const memoryIndex = lastIndexWhere(messages, (message) => message.role === 'user' && isMemoryMessage(message.content));
  const quoted = memoryIndex > userIndex ? newestQuotedUserMessage(messages[memoryIndex]?.content ?? '') : undefined;
  if (quoted !== undefined) return { index: memoryIndex, text: quoted, isTask: false };
  return { index: userIndex, text: messages[userIndex]?.content ?? '', isTask: messages.findIndex(opensTurn) === userIndex };
}

function findTurn(messages: readonly ChatMessage[], opening: TurnOpening, options: ScriptOptions): Turn {
  const { text: userText, isTask } = opening;
  const directive = parseDirective(userText);
  const scripted = parseScriptedCalls(userText);
  const usualBudget = scripted.length > 0 ? scripted.length : isTask ? options.defaultSteps : options.followUpSteps;
  const budget = Math.max(directive?.steps ?? usualBudget, scripted.length);
  // An output size or pace set earlier (usually by the task) holds until a later directive changes it.
  const output = directive?.output ?? earlierDirective(messages, opening.index, 'output') ?? options.outputBytes;
  const busy = directive?.busy ?? earlierDirective(messages, opening.index, 'busy') ?? false;
  const commandsOff = directive?.commandsOff ?? earlierDirective(messages, opening.index, 'commandsOff') ?? false;
  return { userText, hash: shortHash(userText), isTask, budget, output, busy, commandsOff, scripted };
}

/** The value of `key` the newest turn-opening message at or before `index` set, if any did. */
function earlierDirective<K extends 'output' | 'busy' | 'commandsOff'>(messages: readonly ChatMessage[], index: number, key: K): Directive[K] | undefined {
  for (let at = index; at >= 0; at -= 1) {
    const message = messages[at];
    const value = message !== undefined && opensTurn(message) ? parseDirective(message.content)?.[key] : undefined;
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The text with its `[sim …]` directive taken out: plumbing for the simulator, not part of what was asked. */
export function withoutDirective(text: string): string {
  return text.replace(SCRIPTED_CALL, ' ').replace(SCRIPTED_SAY, ' ').replace(DIRECTIVE, ' ').trim();
}

/** The first words of a message, directive removed, for replies that quote it. */
export function firstWords(text: string, count = 8): string {
  const words = withoutDirective(text).split(/\s+/).filter((word) => word !== '');
  return words.slice(0, count).join(' ') + (words.length > count ? '…' : '');
}

function notesPath(turn: Turn, step: number): string {
  return `notes/step-${turn.hash}-${step}.md`;
}

function filesWritten(turn: Turn): string[] {
  const files: string[] = [];
  for (let step = 2; step <= turn.budget - turn.scripted.length; step += 4) files.push(notesPath(turn, step));
  return files;
}

/** Output size for a step: spread over the range, but fixed for a given step. */
function outputSizeFor(step: number, range: ByteRange): number {
  return range.min + (hashInt('output', step) % (range.max - range.min + 1));
}

/** `seq` lines are `test case N: ok\n`; count how many reach `bytes`. */
function seqLinesFor(bytes: number): number {
  let lines = 0;
  let total = 0;
  while (total < bytes) {
    lines += 1;
    total += 'test case : ok\n'.length + String(lines).length;
  }
  return Math.max(lines, 1);
}

function runCommandLine(step: number, turn: Turn, marker: string | undefined): string {
  const target = outputSizeFor(step, turn.output);
  // `echo` adds the marker and a newline to the output; take them off the seq part.
  const prefix = marker === undefined ? '' : `echo '${marker}'; `;
  const seqBytes = target - (marker === undefined ? 0 : marker.length + 1);
  // %.0f rather than %g: %g switches to 1e+06 past a million lines.
  return `${prefix}seq -f 'test case %.0f: ok' 1 ${seqLinesFor(seqBytes)}`;
}

/** A log of checked cases, `bytes` long: what the agent writes where it cannot run the tests. */
function checkLog(bytes: number): string {
  const lines: string[] = [];
  let total = 0;
  for (let index = 1; total < bytes; index++) {
    const line = `checked case ${index}: looks right`;
    lines.push(line);
    total += line.length + 1;
  }
  return lines.join('\n');
}

function notesFor(turn: Turn, step: number): string {
  return [
    `# Notes, step ${step} of ${turn.budget}`,
    '',
    `Task: ${firstWords(turn.userText, 12)}`,
    '',
    '- Listed the workspace and looked at how the files are laid out.',
    '- Ran the checks; every case passed so far, and the output size is stable.',
    '- Open question: do the remaining files need the same change?',
    '',
    `Next: go on with step ${step + 1} and re-read these notes before deciding.`,
    '',
  ].join('\n');
}

function toolCall(turn: Turn, step: number, name: string, args: Record<string, unknown>, index = 0): ToolCall {
  return {
    id: `call_${step}_${index}_${shortHash(turn.userText, step)}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  };
}

function act(turn: Turn, step: number, content: string, name: string, args: Record<string, unknown>): AssistantReply {
  return { role: 'assistant', content, tool_calls: [toolCall(turn, step, name, args)] };
}

/**
 * True once the worker has answered a run_command with its refusal (no sandbox on that worker): an
 * agent that read it stops asking, as a real one would, instead of collecting the same error.
 */
function commandsRefused(messages: readonly ChatMessage[]): boolean {
  const commandCalls = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) if (call.function.name === SimTool.runCommand) commandCalls.add(call.id);
    }
  }
  return messages.some(
    (message) =>
      message.role === 'tool' &&
      commandCalls.has(message.tool_call_id) &&
      message.content.startsWith('error: ') &&
      message.content.includes('run_command is refused'),
  );
}

function stepReply(turn: Turn, step: number, marker: string | undefined, noCommands: boolean): AssistantReply {
  const at = `Step ${step} of ${turn.budget}:`;
  const scripted = turn.scripted[step - 1];
  if (scripted !== undefined) {
    const { calls, say: said } = scripted;
    return {
      role: 'assistant',
      content: said ?? `${at} calling ${calls.map((call) => call.name).join(', ')} as scripted.`,
      tool_calls: calls.map((call, index) => toolCall(turn, step, call.name, call.args, index)),
    };
  }
  // The usual cycle starts over after the scripted calls, so its notes are written before they are read.
  return cycleReply(turn, step, step - turn.scripted.length, at, marker, noCommands);
}

function cycleReply(
  turn: Turn,
  step: number,
  cycleStep: number,
  at: string,
  marker: string | undefined,
  noCommands: boolean,
): AssistantReply {
  const phase = cycleStep % 4;
  if (turn.busy && !noCommands && (phase === 0 || (phase === 1 && cycleStep > 4))) {
    return act(turn, step, `${at} running the test cases again after the last change.`, SimTool.runCommand, {
      command: runCommandLine(step, turn, marker),
    });
  }
  switch (phase) {
    case 1:
      return act(turn, step, `${at} listing the workspace to see what is there.`, SimTool.listFiles, { path: '.' });
    case 2: {
      const path = notesPath(turn, cycleStep);
      return act(turn, step, `${at} writing my notes so far to ${path}.`, SimTool.writeFile, {
        path,
        content: notesFor(turn, step),
      });
    }
    case 3:
      if (noCommands) {
        const path = `notes/log-${turn.hash}-${step}.txt`;
        return act(turn, step, `${at} run_command is not available here, so I write down what I checked in ${path}.`, SimTool.writeFile, {
          path,
          content: checkLog(outputSizeFor(step, turn.output)),
        });
      }
      return act(turn, step, `${at} running the test cases and reading their output.`, SimTool.runCommand, {
        command: runCommandLine(step, turn, marker),
      });
    default: {
      const path = notesPath(turn, cycleStep - 2);
      return act(turn, step, `${at} re-reading ${path} before going on.`, SimTool.readFile, { path });
    }
  }
}

function summary(turn: Turn): string {
  const files = filesWritten(turn);
  return `Completed the task in ${turn.budget} steps. Files written: ${files.length === 0 ? 'none' : files.join(', ')}.`;
}

function say(content: string): AssistantReply {
  return { role: 'assistant', content };
}

/**
 * With no step of the turn left in the context (compaction summarized them all), the newest summary
 * after the turn's opening message says where the turn was.
 */
function stepAfterSummary(messages: readonly ChatMessage[], openedAt: number): number | undefined {
  const summaryIndex = lastIndexWhere(messages, (message) => message.role === 'user' && isSummaryMessage(message.content));
  const found = summaryIndex > openedAt ? messages[summaryIndex] : undefined;
  const lastStep = found === undefined ? undefined : summaryProgress(found.content ?? '').lastStep;
  return lastStep === undefined ? undefined : lastStep + 1;
}

/** An agent that just got a cut output reads on where the cut began, as a real one would. */
function pageThroughView(messages: readonly ChatMessage[], turn: Turn, step: number): AssistantReply | undefined {
  const newest = messages[messages.length - 1];
  const view = newest?.role === 'tool' ? parseViewMarker(newest.content) : undefined;
  if (!view) return undefined;
  return act(turn, step, `Step ${step} of ${turn.budget}: that output was cut; reading on in the original.`, SimTool.readOutput, {
    seq: view.seq,
    offset: view.offset,
    limit: 2000,
  });
}

/** The next reply of the scripted agent; same messages and options → the same reply. */
export function nextReply(messages: readonly ChatMessage[], options: ScriptOptions): AssistantReply {
  const opening = findOpening(messages);
  if (opening === undefined) return say('There is no user message yet, so there is nothing for me to do.');
  const turn = findTurn(messages, opening, options);
  const openedAt = opening.index;

  // The newest step's call id says where the turn is, even after older messages were trimmed.
  const actedIndex = lastIndexWhere(
    messages,
    (message) => message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0,
  );
  let step = 1;
  const acted = actedIndex > openedAt ? messages[actedIndex] : undefined;
  const lastCall = acted?.role === 'assistant' ? acted.tool_calls?.[0] : undefined;
  if (lastCall !== undefined) {
    // Ids the script did not make (rewritten by the agent): fall back to counting tool turns.
    const counted = messages
      .slice(openedAt + 1)
      .filter((message) => message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0).length;
    step = (stepOfCallId(lastCall.id) ?? counted) + 1;
    // An agent that keeps going after `finish` gets the answer again instead of a second finish.
    if (lastCall.function.name === SimTool.finish) return say(summary(turn));
  } else {
    step = stepAfterSummary(messages, openedAt) ?? step;
  }

  if (step <= turn.budget) {
    // A scripted step is what the test asked for at that step: paging through a cut output waits for the usual cycle.
    const paged = step > turn.scripted.length ? pageThroughView(messages, turn, step) : undefined;
    return paged ?? stepReply(turn, step, options.marker, turn.commandsOff || commandsRefused(messages));
  }
  if (turn.isTask) {
    return act(turn, step, 'All steps are done; reporting the result.', SimTool.finish, { answer: summary(turn) });
  }
  const files = filesWritten(turn);
  const wrote = files.length === 0 ? '' : ` and wrote ${files.join(', ')}`;
  return say(`About "${firstWords(turn.userText)}": done. I took ${turn.budget} step(s) on it${wrote}.`);
}
