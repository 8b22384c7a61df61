/**
 * The facts the facts and cost benchmarks plant early in a session — through user messages and
 * through real tool output — and how they are looked for in a request's messages. No I/O:
 * plantedSession.ts plants the workspace file, and the benchmarks read the requests themselves.
 */
import type { ChatMessage } from '../../src/model/messages';
import { isMemoryMessage } from '../../src/model/memoryFormat';
import { isSummaryMessage } from '../../src/model/summaryFormat';

/**
 * A file at the workspace's top level while the first two turns run (the benchmark deletes it when
 * turn 3 begins): the script's `list_files .` (not recursive) output carries its name.
 */
export const PLANTED_FILE = 'legacy_grammar.pegjs';
export const PLANTED_FILE_CONTENT = 'start = expression\n';
const CONSTRAINT = 'never edit files under vendor/, they are generated';
const FAILING_TEST = 'parser rejects empty input';
const USER_PATH = 'src/parser/tokenize.ts';
const CODENAME = 'release train Osprey-7';
/** A failing test named only in a command's output: the command decodes it, so its arguments do not name it. */
const OUTPUT_TEST = 'tokenizer_keeps_trailing_tabs';
const FAILING_COMMAND = `echo ${Buffer.from(`ok 1 - lexer\nnot ok 2 - ${OUTPUT_TEST}\nAssertionError: expected 2 tabs, got 0`).toString('base64')} | base64 -d; exit 1`;
/** A number only in a (passing) command's output: the command computes it. */
const OUTPUT_NUMBER = String(1031 * 7);
const NUMBER_COMMAND = 'echo "parser benchmark: $((1031*7)) ops/s"';

/** Text the agent says, encoded so the user message carrying the directive does not state it. */
function said(text: string): string {
  return `base64:${Buffer.from(text).toString('base64')}`;
}
/** A constraint with no prefix, in the middle of a paragraph, as users write them. */
const PROSE_CONSTRAINT = "don't touch the generated files in vendor/";
/** What the agent decides and what it finds out, stated only in its own reply text (`[sim say …]`). */
const AGENT_DECISION = 'keep the old tokenize() signature';
const AGENT_FINDING = 'TAB_WIDTH = 4';
/** A number printed in the middle of a long passing output (neither its first nor its last line). */
const MIDDLE_NUMBER = String(6011 * 8);
const MIDDLE_NUMBER_COMMAND = `seq -f 'test case %.0f: ok' 1 230; echo "peak heap: $((6011*8)) KB"; seq -f 'test case %.0f: ok' 231 460`;
/** A compiler error in the middle of a long output whose command still exits 0 (its pipeline's last stage succeeds). */
const MIDDLE_ERROR = "not assignable to type 'TabStop'";
const MIDDLE_ERROR_COMMAND =
  `seq -f 'checked file %.0f' 1 220; echo ${Buffer.from(`src/parser/lexer.ts(88,7): error TS2322: Type 'number' is ${MIDDLE_ERROR}.`).toString('base64')} | base64 -d; ` +
  `echo; seq -f 'checked file %.0f' 221 440 | cat`;

/** Fact ids the benchmarks single out. */
export const FactId = {
  constraint: 'constraint',
  failingTestFromOutput: 'failing test (output)',
  writtenFilePath: 'written file path',
} as const;

/** The turn-2 user message: a constraint, a failing test and a path in prose, and two commands whose output carries facts. */
export function secondMessage(turnSteps: number): string {
  return [
    `CONSTRAINT: ${CONSTRAINT}.`,
    `CI reports one failing test, \`${FAILING_TEST}\` in test/parser.test.ts; the code under test is ${USER_PATH}.`,
    `Look into it. [sim steps=${turnSteps}]`,
    `[sim call run_command ${JSON.stringify({ command: FAILING_COMMAND })}]`,
    `[sim call run_command ${JSON.stringify({ command: NUMBER_COMMAND })}]`,
  ].join('\n');
}

/** The user message of turn `part` (3 and on); turn 4's names the codename. */
export function laterMessage(part: number, turnSteps: number): string {
  if (part === 3) return thirdMessage(turnSteps);
  if (part === 4) return `Go on with part 4 of the clean-up; it ships with the ${CODENAME}. [sim steps=${turnSteps}]`;
  return `Go on with part ${part} of the clean-up. [sim steps=${turnSteps}]`;
}

/** Turn 3: a constraint in prose, a decision and a finding the agent states, a number and an error mid-output. */
function thirdMessage(turnSteps: number): string {
  return [
    'Go on with part 3 of the clean-up. The CLI users depend on the tokenizer, so the public API stays as it is,',
    `and please ${PROSE_CONSTRAINT} while you are at it, since the grammar build rewrites them anyway. [sim steps=${turnSteps}]`,
    `[sim call run_command ${JSON.stringify({ command: MIDDLE_NUMBER_COMMAND })}]`,
    `[sim say ${said(`I'll ${AGENT_DECISION} and add a strict flag instead of changing the default.`)}]`,
    `[sim call run_command ${JSON.stringify({ command: MIDDLE_ERROR_COMMAND })}]`,
    `[sim say ${said(`Found it: the root cause is ${AGENT_FINDING} hard-coded in src/parser/lexer.ts, so trailing tabs are dropped.`)}]`,
  ].join('\n');
}

/** True once a request carries turn 3's user message: the planted file leaves the workspace then. */
export function turnThreeBegun(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => message.role === 'user' && message.content.includes('part 3 of'));
}

export type Where = 'pinned' | 'memory' | 'summary' | 'tail';

export interface Fact {
  readonly id: string;
  readonly how: string;
  /** Set once known (the agent's first notes file is only known when it wrote it). */
  text?: string;
}

/** Where a fact is in a request; null once it has left; `not yet` before it first entered any request. */
export type Found = Where | null | 'not yet';

export function factList(): Fact[] {
  return [
    { id: FactId.constraint, how: 'a `CONSTRAINT:` line of the turn-2 user message', text: CONSTRAINT },
    { id: 'failing test (user)', how: 'named in prose in the turn-2 user message', text: FAILING_TEST },
    { id: 'user file path', how: 'named in prose in the turn-2 user message', text: USER_PATH },
    { id: 'codename', how: 'prose in the turn-4 user message', text: CODENAME },
    { id: 'listed file name', how: '`list_files` output of turns 1–2 (file deleted after turn 2)', text: PLANTED_FILE },
    { id: FactId.writtenFilePath, how: "the agent's first `write_file` (turn 1, step 2)" },
    { id: FactId.failingTestFromOutput, how: 'only in the output of a failing `run_command` (turn 2)', text: OUTPUT_TEST },
    { id: 'number (output)', how: 'only in the output of a passing `run_command` (turn 2)', text: OUTPUT_NUMBER },
    { id: 'constraint (prose)', how: 'mid-paragraph in the turn-3 user message, no prefix', text: PROSE_CONSTRAINT },
    { id: 'decision (agent)', how: "only in the agent's own reply text (turn 3, step 1)", text: AGENT_DECISION },
    { id: 'finding (agent)', how: "only in the agent's own reply text (turn 3, step 2)", text: AGENT_FINDING },
    { id: 'number (mid-output)', how: 'a middle line of a long passing `run_command` output (turn 3)', text: MIDDLE_NUMBER },
    { id: 'error (mid-output)', how: 'a `tsc` error in the middle of a long output that exits 0 (turn 3)', text: MIDDLE_ERROR },
  ];
}

function textsOf(message: ChatMessage): string[] {
  const texts = [message.content ?? ''];
  if (message.role === 'assistant') for (const call of message.tool_calls ?? []) texts.push(call.function.arguments);
  return texts;
}

/** Where a fact found in several places is reported: the pinned messages outrank the memory, which outranks a summary, then the tail. */
const RANK: Record<Where, number> = { pinned: 3, memory: 2, summary: 1, tail: 0 };

/** The first two messages are the pinned system prompt and task. */
function whereIs(message: ChatMessage, index: number): Where {
  if (index < 2) return 'pinned';
  if (message.role !== 'user') return 'tail';
  if (isMemoryMessage(message.content)) return 'memory';
  return isSummaryMessage(message.content) ? 'summary' : 'tail';
}

function locate(messages: readonly ChatMessage[], text: string): Where | null {
  let where: Where | null = null;
  for (const [index, message] of messages.entries()) {
    if (!textsOf(message).some((part) => part.includes(text))) continue;
    const here = whereIs(message, index);
    if (where === null || RANK[here] > RANK[where]) where = here;
  }
  return where;
}

function firstWrittenPath(messages: readonly ChatMessage[]): string | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.tool_calls ?? []) {
      if (call.function.name !== 'write_file') continue;
      const args = JSON.parse(call.function.arguments) as { path?: unknown };
      if (typeof args.path === 'string') return args.path;
    }
  }
  return undefined;
}

/** Fills in the written file's path from the first request that shows the agent's first `write_file`. */
export function learnWrittenPath(facts: readonly Fact[], messages: readonly ChatMessage[]): void {
  const written = facts.find((fact) => fact.id === FactId.writtenFilePath);
  if (written && written.text === undefined) {
    const path = firstWrittenPath(messages);
    if (path !== undefined) written.text = path;
  }
}

/** Where each fact is in `messages`; `entered` holds the facts some request so far held, these messages' included. */
export function findAll(facts: readonly Fact[], messages: readonly ChatMessage[], entered: ReadonlySet<string>): Record<string, Found> {
  return Object.fromEntries(
    facts.map((fact) => {
      const where = fact.text === undefined ? null : locate(messages, fact.text);
      return [fact.id, where ?? (entered.has(fact.id) ? null : 'not yet')];
    }),
  );
}

/** Ids of the facts `messages` carry, in the facts' order. */
export function factsPresent(facts: readonly Fact[], messages: readonly ChatMessage[]): string[] {
  return facts.filter((fact) => fact.text !== undefined && locate(messages, fact.text) !== null).map((fact) => fact.id);
}
