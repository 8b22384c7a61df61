/**
 * Benchmark 5, what survives compaction: facts enter a session early — through user messages and
 * through real tool output — and each step's request (what the workflow sends the model) is searched
 * for them, so the share still in the context after 1, 3 and 10 compactions can be read off; at the
 * end every fact is looked up with the store search that backs `search_transcript`. One session per
 * simulator summarizer behaviour (sectioned, prose, headings, lossy, halfFacts, json, long, verbose,
 * empty, refusal, fail): facts must not depend on the model writing agentd's sections, since the
 * session memory carries user messages and the artifact trail whatever the summarizer does (DESIGN §5).
 */
import { join } from 'node:path';
import type { ChatMessage } from '../src/model/messages';
import type { SummarizerBehaviour } from '../src/simulator/options';
import type { ObservedRequest } from '../src/simulator/observer';
import type { Stack } from '../harness/stack';
import { findAll, laterMessage, secondMessage, type Fact, type Found } from './lib/plantedFacts';
import { PlantedSession } from './lib/plantedSession';
import { int, num, say, table, type BenchBody } from './lib/result';
import { summarizerBehaviours } from './lib/summarizerArg';

const WINDOW = 32_768;
const TURN_STEPS = 12;
const TURNS = 24;
const CHECKPOINTS = [1, 3, 10] as const;
const MAX_STEPS = 220;
const task = (summarizer: SummarizerBehaviour): string =>
  `Tidy up the parser module and keep its tests green. [sim steps=${TURN_STEPS} output=7000-8000 summarizer=${summarizer}]`;

interface Check {
  readonly compactions: number;
  readonly requestIndex: number;
  readonly found: Record<string, Found>;
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

/**
 * "Compactions" counts every time the context got shorter (a summary, a prune or a truncation),
 * so summarizers that never succeed are measured after as many context changes as the others.
 */
async function runOne(stack: Stack, summarizer: SummarizerBehaviour): Promise<Run> {
  const sessionId = `bench-facts-${summarizer}-${Date.now()}`;
  const planted = new PlantedSession(join(stack.workspaceRoot, sessionId));
  const facts = planted.facts;
  const checks: Check[] = [];
  let beforeFirst: Check | undefined;
  let compactions = 0;
  let lastLength = 0;
  let lastMessages: readonly ChatMessage[] = [];
  let lastIndex = -1;
  let summaryRequests = 0;
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
    planted.stepRequest(request.messages);
    const found = findAll(facts, request.messages, planted.entered);
    if (compactions === 0) beforeFirst = { compactions: 0, requestIndex: request.index, found };
    const due = CHECKPOINTS.find((count) => count === compactions && !checks.some((check) => check.compactions === count));
    if (due !== undefined) {
      checks.push({ compactions: due, requestIndex: request.index, found });
      if (due === CHECKPOINTS.at(-1)) reachedAll();
    }
  };

  const outcome = await stack.withWorker({ contextWindow: WINDOW, observe }, async () => {
    planted.plant();
    const handle = await stack.sessions.start(
      { task: task(summarizer), model: 'agentd-sim', contextWindow: WINDOW, maxTurns: TURNS, maxSteps: MAX_STEPS, awaitMessagesSeconds: 30 },
      { sessionId },
    );
    // Queued now, each opens the next turn when the one before ends.
    await stack.sessions.send(sessionId, secondMessage(TURN_STEPS));
    for (let part = 3; part <= TURNS; part += 1) await stack.sessions.send(sessionId, laterMessage(part, TURN_STEPS));
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
  const end = { compactions, requestIndex: lastIndex, found: findAll(facts, lastMessages, planted.entered) };
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

export async function factsBench(stack: Stack): Promise<BenchBody> {
  const runs: Run[] = [];
  for (const summarizer of summarizerBehaviours()) runs.push(await runOne(stack, summarizer));
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
