/**
 * Benchmark 5, what survives compaction: facts enter a session early — through a user message and
 * through real tool output — and each step's request (what the workflow sends the model) is searched
 * for them, so the share still in the context after 1, 3 and 10 compactions can be read off.
 *
 * What this measures: agentd's pipeline (tail selection, pinned prefix, summary merge across
 * compactions) with the SIMULATOR as summarizer. The simulator's summaries keep the goal, `CONSTRAINT:`
 * lines of user messages, the files the agent wrote or read (newest 30) and progress; they keep
 * nothing else a real model might. So a fact that lives only in prose or tool output survives here
 * only while it is in the verbatim tail.
 */
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '../src/model/messages';
import { isSummaryMessage } from '../src/model/summaryFormat';
import type { ObservedRequest } from '../src/simulator/observer';
import type { Stack } from '../test/helpers/stack';
import { int, num, say, table, type BenchBody } from './lib/result';

const WINDOW = 32_768;
const TURN_STEPS = 12;
const TURNS = 24;
const CHECKPOINTS = [1, 3, 10] as const;
const TASK = `Tidy up the parser module and keep its tests green. [sim steps=${TURN_STEPS} output=7000-8000]`;
/**
 * A file at the workspace's top level while the first two turns run (the bench deletes it then):
 * the script's `list_files .` (not recursive) output carries its name.
 */
const PLANTED_FILE = 'legacy_grammar.pegjs';
const CONSTRAINT = 'never edit files under vendor/, they are generated';
const FAILING_TEST = 'parser rejects empty input';
const USER_PATH = 'src/parser/tokenize.ts';
const SECOND_MESSAGE = [
  `CONSTRAINT: ${CONSTRAINT}.`,
  `CI reports one failing test, \`${FAILING_TEST}\` in test/parser.test.ts; the code under test is ${USER_PATH}.`,
  `Look into it. [sim steps=${TURN_STEPS}]`,
].join('\n');

type Where = 'pinned' | 'summary' | 'tail';

interface Fact {
  readonly id: string;
  readonly how: string;
  /** Set once known (the agent's first notes file is only known when it wrote it). */
  text?: string;
}

interface Check {
  readonly compactions: number;
  readonly requestIndex: number;
  readonly found: Record<string, Where | null>;
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
    // The first two messages are the pinned system prompt and task; a summary outranks the tail.
    const here: Where = index < 2 ? 'pinned' : message.role === 'user' && isSummaryMessage(message.content) ? 'summary' : 'tail';
    if (here === 'pinned') return here;
    if (where !== 'summary') where = here;
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

export async function factsBench(stack: Stack): Promise<BenchBody> {
  const facts: Fact[] = [
    { id: 'constraint', how: 'a `CONSTRAINT:` line of the turn-2 user message', text: CONSTRAINT },
    { id: 'failing test', how: 'named in prose in the turn-2 user message', text: FAILING_TEST },
    { id: 'user file path', how: 'named in prose in the turn-2 user message', text: USER_PATH },
    { id: 'listed file name', how: '`list_files` output of turns 1–2 (file deleted after turn 2)', text: PLANTED_FILE },
    { id: 'written file path', how: 'the agent\'s first `write_file` (turn 1, step 2)' },
  ];
  const checks: Check[] = [];
  /** The last request before the first summary: every fact should be there, or the test proves nothing. */
  let beforeFirst: Check | undefined;
  let summaries = 0;
  let lastMessages: readonly ChatMessage[] = [];
  let lastIndex = -1;
  let plantedRemoved = false;
  let workspace = '';
  let reachedAll: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (reachedAll = resolve));

  const observe = (request: ObservedRequest): void => {
    if (request.summarizing) {
      summaries += 1;
      return;
    }
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
    if (summaries === 0) beforeFirst = { compactions: 0, requestIndex: request.index, found: findAll(facts, request.messages) };
    const due = CHECKPOINTS.find((count) => count === summaries && !checks.some((check) => check.compactions === count));
    if (due !== undefined) {
      checks.push({ compactions: due, requestIndex: request.index, found: findAll(facts, request.messages) });
      if (due === CHECKPOINTS.at(-1)) reachedAll();
    }
  };

  const outcome = await stack.withWorker({ contextWindow: WINDOW, observe }, async () => {
    const sessionId = `bench-facts-${Date.now()}`;
    workspace = join(stack.workspaceRoot, sessionId);
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, PLANTED_FILE), 'start = expression\n');
    const handle = await stack.sessions.start(
      { task: TASK, model: 'agentd-sim', contextWindow: WINDOW, maxTurns: TURNS, maxSteps: TURNS * (TURN_STEPS + 1) + 10, awaitMessagesSeconds: 30 },
      { sessionId },
    );
    // Queued now, each opens the next turn when the one before ends.
    await stack.sessions.send(sessionId, SECOND_MESSAGE);
    for (let part = 3; part <= TURNS; part += 1) {
      await stack.sessions.send(sessionId, `Go on with part ${part} of the clean-up. [sim steps=${TURN_STEPS}]`);
    }
    const result = stack.sessions.result(sessionId);
    // Enough is known once the last checkpoint is recorded: stop the session there.
    const ended = await Promise.race([reached.then(() => 'checkpoints' as const), result.then(() => 'finished' as const)]);
    const state = await stack.sessions.state(sessionId);
    if (ended === 'checkpoints') await handle.terminate('benchmark has its checkpoints');
    else await result;
    return { state, ended };
  });
  const end = { compactions: summaries, requestIndex: lastIndex, found: findAll(facts, lastMessages) };
  const first = beforeFirst ?? { compactions: 0, requestIndex: -1, found: {} };
  // The end is shown only when the session went on past the last checkpoint.
  const rows = [first, ...checks, ...(checks.at(-1)?.requestIndex === end.requestIndex ? [] : [end])];
  const heading = (row: Check): string =>
    row === first ? 'before the 1st' : row === end ? `at the end (${row.compactions})` : `after ${row.compactions}`;
  for (const row of rows) say(`${heading(row)} compaction(s): ${share(row)} kept — ${facts.map((fact) => `${fact.id}: ${row.found[fact.id] ?? 'lost'}`).join(', ')}`);
  const byStrategy = outcome.state.compaction.byStrategy;

  return {
    figures: {
      task: TASK,
      contextWindow: WINDOW,
      facts: facts.map(({ id, how, text }) => ({ id, how, text: text ?? null })),
      beforeFirstCompaction: { ...first, keptShare: keptShare(first) },
      checkpoints: checks.map((check) => ({ ...check, keptShare: keptShare(check) })),
      end: { ...end, keptShare: keptShare(end), step: outcome.state.step, turn: outcome.state.turn },
      compactionsByStrategy: byStrategy,
      stoppedBecause: outcome.ended,
    },
    markdown: [
      `One session on a ${int(WINDOW)}-token window: task \`${TASK}\`, then ${TURNS - 1} queued user messages, each a turn of`,
      `${TURN_STEPS} steps (7–8 KB \`run_command\` outputs, under the 8,192-char prune threshold, so compactions are summaries).`,
      'Facts enter early; before every step the request the workflow sends',
      'is searched for each (message text and tool-call arguments). "After N compactions" is the first step request after',
      `the Nth summary. The session was stopped once the last checkpoint was read (step ${outcome.state.step}, turn ${outcome.state.turn};`,
      `${byStrategy.summary} summaries, ${byStrategy.prune} prunes, ${byStrategy.truncate} truncations).`,
      '',
      ...table(
        ['fact', 'how it entered', ...rows.map(heading)],
        facts.map((fact) => [`${fact.id}: \`${fact.text ?? '?'}\``, fact.how, ...rows.map((row) => row.found[fact.id] ?? '**lost**')]),
      ),
      '',
      `Share in the context: ${rows.map((row) => `${heading(row)} **${share(row)}**`).join(', ')} (compactions).`,
      missing(checks),
      '',
      '**What this measures, honestly.** The summarizer is the simulator, not an LLM: its summaries carry the goal, every',
      '`CONSTRAINT:` line of a user message, the newest 30 files the agent wrote or read, and progress counters. So the',
      'constraint survives every compaction through the summary merge (each summary folds the previous one in), a path the',
      'agent wrote survives until 30 newer files push it out of the list, and prose or tool output survives only while it is',
      'in the verbatim tail. The figures test agentd\'s tail selection, pinning and summary merging, not summary quality.',
    ].filter((line) => line !== undefined),
  };
}

function findAll(facts: readonly Fact[], messages: readonly ChatMessage[]): Record<string, Where | null> {
  return Object.fromEntries(facts.map((fact) => [fact.id, fact.text === undefined ? null : locate(messages, fact.text)]));
}

function keptShare(check: Check): number {
  const values = Object.values(check.found);
  return values.filter((where) => where !== null).length / values.length;
}

function share(check: Check): string {
  const values = Object.values(check.found);
  return `${values.filter((where) => where !== null).length}/${values.length} (${num(keptShare(check) * 100, 0)}%)`;
}

function missing(checks: readonly Check[]): string {
  const absent = CHECKPOINTS.filter((count) => !checks.some((check) => check.compactions === count));
  return absent.length === 0 ? '' : `The session ended before compaction ${absent.join(', ')}: no figure for ${absent.length === 1 ? 'it' : 'them'}.`;
}
