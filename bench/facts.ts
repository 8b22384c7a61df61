/**
 * Benchmark 5, what survives compaction: facts enter a session early — through user messages and
 * through real tool output — and each step's request (what the workflow sends the model) is searched
 * for them, so the share still in the context after 1, 3 and 10 compactions can be read off; at the
 * end every fact is looked up with the store search that backs `search_transcript`. One session per
 * simulator summarizer behaviour (sectioned, prose, headings, lossy, long, refusal, fail): facts must
 * not depend on the model writing agentd's sections, since the session memory carries user messages
 * and the artifact trail whatever the summarizer does (DESIGN §5).
 */
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '../src/model/messages';
import { isMemoryMessage } from '../src/model/memoryFormat';
import { isSummaryMessage } from '../src/model/summaryFormat';
import { SUMMARIZER_BEHAVIOURS, type SummarizerBehaviour } from '../src/simulator/options';
import type { ObservedRequest } from '../src/simulator/observer';
import type { Stack } from '../test/helpers/stack';
import { int, num, say, table, type BenchBody } from './lib/result';

const WINDOW = 32_768;
const TURN_STEPS = 12;
const TURNS = 24;
const CHECKPOINTS = [1, 3, 10] as const;
const MAX_STEPS = 220;
const task = (summarizer: SummarizerBehaviour): string =>
  `Tidy up the parser module and keep its tests green. [sim steps=${TURN_STEPS} output=7000-8000 summarizer=${summarizer}]`;
/**
 * A file at the workspace's top level while the first two turns run (the bench deletes it then):
 * the script's `list_files .` (not recursive) output carries its name.
 */
const PLANTED_FILE = 'legacy_grammar.pegjs';
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
const SECOND_MESSAGE = [
  `CONSTRAINT: ${CONSTRAINT}.`,
  `CI reports one failing test, \`${FAILING_TEST}\` in test/parser.test.ts; the code under test is ${USER_PATH}.`,
  `Look into it. [sim steps=${TURN_STEPS}]`,
  `[sim call run_command ${JSON.stringify({ command: FAILING_COMMAND })}]`,
  `[sim call run_command ${JSON.stringify({ command: NUMBER_COMMAND })}]`,
].join('\n');
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
const THIRD_MESSAGE = [
  'Go on with part 3 of the clean-up. The CLI users depend on the tokenizer, so the public API stays as it is,',
  `and please ${PROSE_CONSTRAINT} while you are at it, since the grammar build rewrites them anyway. [sim steps=${TURN_STEPS}]`,
  `[sim call run_command ${JSON.stringify({ command: MIDDLE_NUMBER_COMMAND })}]`,
  `[sim say ${said(`I'll ${AGENT_DECISION} and add a strict flag instead of changing the default.`)}]`,
  `[sim call run_command ${JSON.stringify({ command: MIDDLE_ERROR_COMMAND })}]`,
  `[sim say ${said(`Found it: the root cause is ${AGENT_FINDING} hard-coded in src/parser/lexer.ts, so trailing tabs are dropped.`)}]`,
].join('\n');
const FOURTH_MESSAGE = `Go on with part 4 of the clean-up; it ships with the ${CODENAME}. [sim steps=${TURN_STEPS}]`;

type Where = 'pinned' | 'memory' | 'summary' | 'tail';

interface Fact {
  readonly id: string;
  readonly how: string;
  /** Set once known (the agent's first notes file is only known when it wrote it). */
  text?: string;
}

/** Where a fact is in a request; null once it has left; `not yet` before it first entered any request. */
type Found = Where | null | 'not yet';

interface Check {
  readonly compactions: number;
  readonly requestIndex: number;
  readonly found: Record<string, Found>;
}

function textsOf(message: ChatMessage): string[] {
  const texts = [message.content ?? ''];
  if (message.role === 'assistant') for (const call of message.tool_calls ?? []) texts.push(call.function.arguments);
  return texts;
}

function locate(messages: readonly ChatMessage[], text: string): Where | null {
  let where: Where | null = null;
  for (const [index, message] of messages.entries()) {
    if (!textsOf(message).some((part) => part.includes(text))) continue;
    // The first two messages are the pinned system prompt and task; the memory outranks a summary, which outranks the tail.
    const here: Where =
      index < 2
        ? 'pinned'
        : message.role === 'user' && isMemoryMessage(message.content)
          ? 'memory'
          : message.role === 'user' && isSummaryMessage(message.content)
            ? 'summary'
            : 'tail';
    const rank: Record<Where, number> = { pinned: 3, memory: 2, summary: 1, tail: 0 };
    if (where === null || rank[here] > rank[where]) where = here;
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

/** One session's figures under one summarizer behaviour. */
interface Run {
  readonly summarizer: SummarizerBehaviour;
  readonly facts: Fact[];
  readonly rows: Check[];
  readonly searchable: Record<string, boolean>;
  readonly byStrategy: Record<string, number>;
  readonly step: number;
  readonly summaryRequests: number;
}

function factList(): Fact[] {
  return [
    { id: 'constraint', how: 'a `CONSTRAINT:` line of the turn-2 user message', text: CONSTRAINT },
    { id: 'failing test (user)', how: 'named in prose in the turn-2 user message', text: FAILING_TEST },
    { id: 'user file path', how: 'named in prose in the turn-2 user message', text: USER_PATH },
    { id: 'codename', how: 'prose in the turn-4 user message', text: CODENAME },
    { id: 'listed file name', how: '`list_files` output of turns 1–2 (file deleted after turn 2)', text: PLANTED_FILE },
    { id: 'written file path', how: "the agent's first `write_file` (turn 1, step 2)" },
    { id: 'failing test (output)', how: 'only in the output of a failing `run_command` (turn 2)', text: OUTPUT_TEST },
    { id: 'number (output)', how: 'only in the output of a passing `run_command` (turn 2)', text: OUTPUT_NUMBER },
    { id: 'constraint (prose)', how: 'mid-paragraph in the turn-3 user message, no prefix', text: PROSE_CONSTRAINT },
    { id: 'decision (agent)', how: "only in the agent's own reply text (turn 3, step 1)", text: AGENT_DECISION },
    { id: 'finding (agent)', how: "only in the agent's own reply text (turn 3, step 2)", text: AGENT_FINDING },
    { id: 'number (mid-output)', how: 'a middle line of a long passing `run_command` output (turn 3)', text: MIDDLE_NUMBER },
    { id: 'error (mid-output)', how: 'a `tsc` error in the middle of a long output that exits 0 (turn 3)', text: MIDDLE_ERROR },
  ];
}

/**
 * "Compactions" counts every time the context got shorter (a summary, a prune or a truncation),
 * so summarizers that never succeed are measured after as many context changes as the others.
 */
async function runOne(stack: Stack, summarizer: SummarizerBehaviour): Promise<Run> {
  const facts = factList();
  const checks: Check[] = [];
  let beforeFirst: Check | undefined;
  let compactions = 0;
  let lastLength = 0;
  let lastMessages: readonly ChatMessage[] = [];
  let lastIndex = -1;
  let plantedRemoved = false;
  let workspace = '';
  let summaryRequests = 0;
  const entered = new Set<string>();
  let reachedAll: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (reachedAll = resolve));

  const observe = (request: ObservedRequest): void => {
    if (request.summarizing) {
      summaryRequests += 1;
      return;
    }
    if (request.messages.length < lastLength) compactions += 1;
    lastLength = request.messages.length;
    lastMessages = request.messages;
    lastIndex = request.index;
    const written = facts.find((fact) => fact.id === 'written file path');
    if (written && written.text === undefined) {
      const path = firstWrittenPath(request.messages);
      if (path !== undefined) written.text = path;
    }
    // Turn 3 has begun: the planted file leaves the workspace, so later listings no longer show it.
    if (!plantedRemoved && request.messages.some((message) => message.role === 'user' && message.content.includes('part 3 of'))) {
      rmSync(join(workspace, PLANTED_FILE));
      plantedRemoved = true;
    }
    const found = findAll(facts, request.messages, entered);
    if (compactions === 0) beforeFirst = { compactions: 0, requestIndex: request.index, found };
    const due = CHECKPOINTS.find((count) => count === compactions && !checks.some((check) => check.compactions === count));
    if (due !== undefined) {
      checks.push({ compactions: due, requestIndex: request.index, found });
      if (due === CHECKPOINTS.at(-1)) reachedAll();
    }
  };

  const sessionId = `bench-facts-${summarizer}-${Date.now()}`;
  const outcome = await stack.withWorker({ contextWindow: WINDOW, observe }, async () => {
    workspace = join(stack.workspaceRoot, sessionId);
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, PLANTED_FILE), 'start = expression\n');
    const handle = await stack.sessions.start(
      { task: task(summarizer), model: 'agentd-sim', contextWindow: WINDOW, maxTurns: TURNS, maxSteps: MAX_STEPS, awaitMessagesSeconds: 30 },
      { sessionId },
    );
    // Queued now, each opens the next turn when the one before ends.
    await stack.sessions.send(sessionId, SECOND_MESSAGE);
    await stack.sessions.send(sessionId, THIRD_MESSAGE);
    await stack.sessions.send(sessionId, FOURTH_MESSAGE);
    for (let part = 5; part <= TURNS; part += 1) {
      await stack.sessions.send(sessionId, `Go on with part ${part} of the clean-up. [sim steps=${TURN_STEPS}]`);
    }
    const result = stack.sessions.result(sessionId);
    // Enough is known once the last checkpoint is recorded: stop the session there.
    const ended = await Promise.race([reached.then(() => 'checkpoints' as const), result.then(() => 'finished' as const)]);
    const state = await stack.sessions.state(sessionId);
    if (ended === 'checkpoints') await handle.terminate('benchmark has its checkpoints');
    else await result;
    return { state };
  });
  const searchable: Record<string, boolean> = {};
  for (const fact of facts) {
    searchable[fact.id] = fact.text !== undefined && (await stack.store.search(sessionId, fact.text)).length > 0;
  }
  const end = { compactions, requestIndex: lastIndex, found: findAll(facts, lastMessages, entered) };
  const first = beforeFirst ?? { compactions: 0, requestIndex: -1, found: {} };
  const rows = [first, ...checks, ...(checks.at(-1)?.requestIndex === end.requestIndex ? [] : [end])];
  const run: Run = {
    summarizer,
    facts,
    rows,
    searchable,
    byStrategy: outcome.state.compaction.byStrategy,
    step: outcome.state.step,
    summaryRequests,
  };
  say(
    `${summarizer}: ${rows.map((row) => `${heading(run, row)} ${share(row)}`).join(', ')}; searchable ${Object.values(searchable).filter(Boolean).length}/${facts.length}; ` +
      `compactions ${JSON.stringify(run.byStrategy)}`,
  );
  return run;
}

function heading(run: Run, row: Check): string {
  if (row === run.rows[0]) return 'before the 1st';
  const last = run.rows.at(-1);
  const isCheckpoint = CHECKPOINTS.some((count) => count === row.compactions) && row !== last;
  return isCheckpoint || (row === last && CHECKPOINTS.at(-1) === row.compactions) ? `after ${row.compactions}` : `at the end (${row.compactions})`;
}

/** `--summarizers=prose,lossy` (bench argument) narrows the behaviours; all by default. */
function behaviours(): SummarizerBehaviour[] {
  const arg = process.argv.find((value) => value.startsWith('--summarizers='))?.slice('--summarizers='.length);
  if (arg === undefined) return [...SUMMARIZER_BEHAVIOURS];
  return SUMMARIZER_BEHAVIOURS.filter((behaviour) => arg.split(',').includes(behaviour));
}

export async function factsBench(stack: Stack): Promise<BenchBody> {
  const runs: Run[] = [];
  for (const summarizer of behaviours()) runs.push(await runOne(stack, summarizer));
  const tables = runs.flatMap((run) => [
    `### Summarizer \`${run.summarizer}\``,
    '',
    `Stopped at step ${run.step}; ${run.summaryRequests} summary requests answered; compactions ${JSON.stringify(run.byStrategy)}.`,
    '',
    ...table(
      ['fact', 'how it entered', ...run.rows.map((row) => heading(run, row)), 'search'],
      run.facts.map((fact) => [
        `${fact.id}: \`${fact.text ?? '?'}\``,
        fact.how,
        ...run.rows.map((row) => row.found[fact.id] ?? '**lost**'),
        run.searchable[fact.id] ? 'found' : '**not found**',
      ]),
    ),
    '',
    `Share in the context: ${run.rows.map((row) => `${heading(run, row)} **${share(row)}**`).join(', ')}.`,
    missing(run.rows.slice(1)),
    '',
  ]);
  return {
    figures: {
      contextWindow: WINDOW,
      runs: runs.map((run) => ({
        summarizer: run.summarizer,
        task: task(run.summarizer),
        facts: run.facts.map(({ id, how, text }) => ({ id, how, text: text ?? null })),
        rows: run.rows.map((row) => ({ ...row, keptShare: keptShare(row) })),
        searchable: run.searchable,
        compactionsByStrategy: run.byStrategy,
        step: run.step,
        summaryRequests: run.summaryRequests,
      })),
    },
    markdown: [
      `One session per simulator summarizer behaviour on a ${int(WINDOW)}-token window: the task, then ${TURNS - 1} queued user`,
      `messages, each a turn of ${TURN_STEPS} steps (7–8 KB \`run_command\` outputs). Facts enter early; before every step the`,
      'request the workflow sends is searched for each (message text and tool-call arguments) and the place it is found in',
      'is shown: `pinned` (task), `memory` (the session memory agentd builds without a model), `summary`, `tail`. "After N',
      'compactions" is the first step request after the context got shorter for the Nth time (a summary, prune or',
      'truncation); `not yet` marks a fact no request had held so far, and shares count only facts that had entered.',
      '"search" is the store search behind `search_transcript`, run at the end for each fact.',
      '',
      ...tables,
      '**What this measures, honestly.** The summarizers are the simulator\'s scripted behaviours, not LLMs. Facts from user',
      'messages and the artifact trail (files written and listed, commands with their last output line) are kept by the',
      'session memory, which no model writes and which truncations rebuild too; so are the statements of user and agent',
      'prose (constraints, decisions, findings) and the telling lines of command outputs (errors, failing checks, printed',
      'values) once their messages leave the context. The memory has a budget: a fact that does not fit it survives only',
      'while a summary or the tail carries it, and is then found by search.',
    ].filter((line) => line !== undefined),
  };
}

/** Where each fact is in `messages`; `entered` (updated here) remembers the facts any request so far held. */
function findAll(facts: readonly Fact[], messages: readonly ChatMessage[], entered: Set<string>): Record<string, Found> {
  return Object.fromEntries(
    facts.map((fact) => {
      const where = fact.text === undefined ? null : locate(messages, fact.text);
      if (where !== null) entered.add(fact.id);
      return [fact.id, where ?? (entered.has(fact.id) ? null : 'not yet')];
    }),
  );
}

/** Of the facts that had entered by then, the share still in the context. */
function keptShare(check: Check): number {
  const values = Object.values(check.found).filter((where) => where !== 'not yet');
  return values.length === 0 ? 1 : values.filter((where) => where !== null).length / values.length;
}

function share(check: Check): string {
  const values = Object.values(check.found).filter((where) => where !== 'not yet');
  return `${values.filter((where) => where !== null).length}/${values.length} (${num(keptShare(check) * 100, 0)}%)`;
}

function missing(checks: readonly Check[]): string {
  const absent = CHECKPOINTS.filter((count) => !checks.some((check) => check.compactions >= count));
  return absent.length === 0 ? '' : `The session ended before compaction ${absent.join(', ')}: no figure for ${absent.length === 1 ? 'it' : 'them'}.`;
}
