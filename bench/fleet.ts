/**
 * Benchmark `fleet`: 1,000 sessions listed through Temporal's visibility index. Every session is
 * started for real and left open (most wait for a message after one model call, a fifth paused on
 * a one-step budget); then `agentd list --limit 1000 --json` runs as a child process, as a user
 * types it, and the stock `temporal workflow list --query 'AgentdStatus="waiting_for_approval"'`
 * must return exactly the paused ones. The baseline, in the same run over the same sessions, is the
 * list as it was before: list the executions, then ask every running one its `state` query (5 s
 * each). Also measured: the history bytes the attribute upserts add per step.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { listSessions, type SessionSummary } from '../src/client/sessionList';
import { findTemporalCli } from '../src/devServer/temporalCli';
import { WORKFLOW_TYPE } from '../src/session/definitions';
import type { SessionState } from '../src/session/state';
import { entryPoint, finished, spawnNode } from '../harness/processes';
import type { Stack } from '../harness/stack';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';

const run = promisify(execFile);

const SESSIONS = 1_000;
/** One in this many is started on a one-step budget, so it pauses for approval. */
const PAUSED_EVERY = 5;
/** Sessions started at once, with a rest between batches: the machine is shared. */
const BATCH = 20;
const REST_MS = 250;
const SETTLE_LIMIT_MS = 900_000;
const LIST_RUNS = 3;
const HISTORY_STEPS = 20;
/** What the old `agentd list` gave each running session to answer its state query. */
const OLD_QUERY_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function sessionId(n: number): string {
  return `fleet-${String(n).padStart(4, '0')}`;
}

function paused(n: number): boolean {
  return n % PAUSED_EVERY === 0;
}

async function startFleet(stack: Stack): Promise<void> {
  for (let first = 0; first < SESSIONS; first += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, SESSIONS - first) }, (_, index) => first + index);
    await Promise.all(
      batch.map((n) =>
        paused(n)
          ? stack.sessions.start({ task: `paused ${n} [sim steps=3]`, model: 'agentd-sim', maxSteps: 1, approvalTimeoutSeconds: 86_400 }, { sessionId: sessionId(n) })
          : stack.sessions.start({ task: `waiting ${n} [sim steps=0]`, model: 'agentd-sim', awaitMessagesSeconds: 86_400 }, { sessionId: sessionId(n) }),
      ),
    );
    await sleep(REST_MS);
  }
}

async function count(client: Client, query: string): Promise<number> {
  return (await client.workflow.count(query)).count;
}

/** Until the index shows every session out of `running`: each has taken its step and waits. */
async function settled(stack: Stack): Promise<void> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  const query = `WorkflowType = '${WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND AgentdStatus IN ('waiting_for_message', 'waiting_for_approval')`;
  for (;;) {
    const waiting = await count(stack.client, query);
    if (waiting >= SESSIONS) return;
    if (Date.now() > deadline) throw new Error(`only ${waiting} of ${SESSIONS} sessions waiting after ${SETTLE_LIMIT_MS / 1000} s`);
    await sleep(2_000);
  }
}

/** `agentd list` as a user runs it: a child process, node start-up included. */
async function cliList(stack: Stack, args: string[]): Promise<{ ms: number; sessions: SessionSummary[] }> {
  const started = performance.now();
  const result = await finished(spawnNode(entryPoint('cli/main'), ['list', ...args, '--json'], { TEMPORAL_ADDRESS: stack.temporal.address }));
  const ms = performance.now() - started;
  if (result.code !== 0) throw new Error(`agentd list failed (${result.code}): ${result.stderr}`);
  return { ms, sessions: JSON.parse(result.stdout) as SessionSummary[] };
}

/** listSessions in this process, paged as the CLI pages it. */
async function inProcessList(client: Client): Promise<{ ms: number; sessions: number }> {
  const started = performance.now();
  let sessions = 0;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await listSessions(client, { pageSize: SESSIONS, ...(nextPageToken ? { nextPageToken } : {}) });
    sessions += page.sessions.length;
    nextPageToken = page.nextPageToken;
  } while (nextPageToken);
  return { ms: performance.now() - started, sessions };
}

/** The list before the index: every execution, then the state query of each running one, all at once. */
async function oldList(stack: Stack): Promise<{ ms: number; answered: number; paused: number }> {
  const started = performance.now();
  const executions: WorkflowExecutionInfo[] = [];
  for await (const execution of stack.client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPE}'` })) {
    executions.push(execution);
    if (executions.length >= SESSIONS) break;
  }
  const states = await Promise.all(
    executions.map((execution) =>
      execution.status.name === 'RUNNING' ? stack.sessions.queryState(execution.workflowId, { waitMs: OLD_QUERY_WAIT_MS }).catch(() => undefined) : Promise.resolve(undefined),
    ),
  );
  const answered = states.filter((state): state is SessionState => state !== undefined);
  return { ms: performance.now() - started, answered: answered.length, paused: answered.filter((state) => state.status === 'waiting_for_approval').length };
}

async function stockPaused(stack: Stack): Promise<{ ms: number; ids: string[] }> {
  const cli = findTemporalCli();
  if (!cli) throw new Error('no temporal CLI (agentd setup fetches it)');
  const started = performance.now();
  const { stdout } = await run(
    cli,
    ['workflow', 'list', '--address', stack.temporal.address, '--query', 'AgentdStatus="waiting_for_approval"', '--limit', String(SESSIONS * 2), '-o', 'json'],
    { maxBuffer: 64 * 2 ** 20 },
  );
  const rows = JSON.parse(stdout) as Array<{ execution: { workflowId: string } }>;
  return { ms: performance.now() - started, ids: rows.map((row) => row.execution.workflowId) };
}

/** Bytes of one session's history, and of its attribute upserts, over HISTORY_STEPS steps. */
async function historyCost(stack: Stack) {
  const handle = await stack.sessions.start({ task: `history [sim steps=${HISTORY_STEPS - 1}]`, model: 'agentd-sim' }, { sessionId: 'fleet-history' });
  const result = await stack.sessions.result(handle.workflowId);
  const events = (await handle.fetchHistory()).events ?? [];
  const size = (event: temporal.api.history.v1.IHistoryEvent) => temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
  const names = (event: temporal.api.history.v1.IHistoryEvent) => Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});
  const ours = events.filter((event) => names(event).some((name) => name.startsWith('Agentd')));
  return {
    steps: result.steps,
    historyBytes: events.reduce((sum, event) => sum + size(event), 0),
    upserts: ours.length,
    upsertBytes: ours.reduce((sum, event) => sum + size(event), 0),
  };
}

export async function fleetBench(stack: Stack): Promise<BenchBody> {
  return stack.withWorker({}, async () => {
    const history = await historyCost(stack);
    const upsertPerStep = history.upsertBytes / history.steps;
    say(`history: ${history.upserts} attribute upserts over ${history.steps} steps = ${int(upsertPerStep)} B per step of ${int(history.historyBytes / history.steps)} B per step in all`);

    let started = performance.now();
    await startFleet(stack);
    const startSeconds = (performance.now() - started) / 1000;
    await settled(stack);
    const settleSeconds = (performance.now() - started) / 1000;
    const pausedIds = Array.from({ length: SESSIONS }, (_, n) => n).filter(paused).map(sessionId).sort();
    say(`${int(SESSIONS)} sessions started in ${num(startSeconds, 1)} s, all waiting after ${num(settleSeconds, 1)} s (${pausedIds.length} paused)`);

    const cliRuns: number[] = [];
    let listed: SessionSummary[] = [];
    for (let attempt = 0; attempt < LIST_RUNS; attempt++) {
      const result = await cliList(stack, ['--limit', String(SESSIONS)]);
      cliRuns.push(result.ms);
      listed = result.sessions;
    }
    const cliMs = median(cliRuns);
    const fleetListed = listed.filter((session) => session.sessionId.startsWith('fleet-') && session.sessionId !== 'fleet-history');
    say(`agentd list --limit ${SESSIONS} --json (child process): median ${int(cliMs)} ms of ${cliRuns.map((ms) => int(ms)).join(', ')}; ${fleetListed.length} fleet sessions listed`);
    const pausedCli = await cliList(stack, ['--status', 'waiting_for_approval', '--limit', String(SESSIONS)]);
    const pausedCliIds = pausedCli.sessions.map((session) => session.sessionId).sort();
    say(`agentd list --status waiting_for_approval: ${pausedCliIds.length} in ${int(pausedCli.ms)} ms; exactly the paused: ${String(pausedCliIds.join() === pausedIds.join())}`);
    const inProcessRuns: number[] = [];
    for (let attempt = 0; attempt < LIST_RUNS; attempt++) inProcessRuns.push((await inProcessList(stack.client)).ms);
    const inProcessMs = median(inProcessRuns);
    say(`listSessions in process, all pages: median ${int(inProcessMs)} ms`);
    const stock = await stockPaused(stack);
    const stockIds = [...stock.ids].sort();
    say(`temporal workflow list --query 'AgentdStatus="waiting_for_approval"': ${stockIds.length} in ${int(stock.ms)} ms; exactly the paused: ${String(stockIds.join() === pausedIds.join())}`);

    started = performance.now();
    const old = await oldList(stack);
    say(`old list (state query per running session, ${OLD_QUERY_WAIT_MS / 1000} s each): ${int(old.ms)} ms, ${old.answered} of ${SESSIONS + 1} answered → ${ratio(old.ms, inProcessMs)} listSessions`);

    return {
      figures: {
        sessions: SESSIONS,
        paused: pausedIds.length,
        startSeconds,
        settleSeconds,
        cliListMs: { median: cliMs, runs: cliRuns, listed: listed.length, fleetListed: fleetListed.length },
        cliPausedList: { ms: pausedCli.ms, count: pausedCliIds.length, exact: pausedCliIds.join() === pausedIds.join() },
        inProcessListMs: { median: inProcessMs, runs: inProcessRuns },
        stockCliPaused: { ms: stock.ms, count: stockIds.length, exact: stockIds.join() === pausedIds.join() },
        oldList: { ms: old.ms, answered: old.answered, paused: old.paused, queryWaitMs: OLD_QUERY_WAIT_MS },
        oldOverNew: old.ms / inProcessMs,
        history: { ...history, upsertBytesPerStep: upsertPerStep, historyBytesPerStep: history.historyBytes / history.steps },
      },
      markdown: [
        `${int(SESSIONS)} sessions started in batches of ${BATCH} (${REST_MS} ms apart) on one in-process worker with a zero-latency simulator:`,
        `${int(SESSIONS - pausedIds.length)} take one model call and wait for a message, ${pausedIds.length} take one step on \`maxSteps: 1\` and pause`,
        `for approval. Started in ${num(startSeconds, 1)} s; the index showed all of them waiting after ${num(settleSeconds, 1)} s. All stay open while`,
        'the lists below run; the worker keeps polling.',
        '',
        ...table(
          ['list', 'answer', 'sessions'],
          [
            [`\`agentd list --limit ${SESSIONS} --json\` (child process, node start-up included; median of ${LIST_RUNS})`, `**${int(cliMs)} ms**`, `${int(listed.length)}`],
            ['`agentd list --status waiting_for_approval --limit 1000 --json`', `${int(pausedCli.ms)} ms`, `${pausedCliIds.length} (exactly the paused: ${pausedCliIds.join() === pausedIds.join() ? 'yes' : 'no'})`],
            [`\`listSessions\` in process, every page (median of ${LIST_RUNS})`, `${int(inProcessMs)} ms`, `${int(listed.length)}`],
            [`\`temporal workflow list --query 'AgentdStatus="waiting_for_approval"'\` (stock CLI 1.9.1)`, `${int(stock.ms)} ms`, `${stockIds.length} (exactly the paused: ${stockIds.join() === pausedIds.join() ? 'yes' : 'no'})`],
            [`baseline: the old list, a \`state\` query to every running session (${OLD_QUERY_WAIT_MS / 1000} s limit each, all at once)`, `${int(old.ms)} ms`, `${old.answered} answered`],
          ],
        ),
        '',
        `The old way took **${ratio(old.ms, inProcessMs)}** the time of listSessions over the same sessions (${ratio(old.ms, cliMs)} the whole \`agentd list\` process).`,
        '',
        `History cost: a ${history.steps}-step session wrote ${history.upserts} attribute upserts (one per step, plus its status at the end),`,
        `${int(history.upsertBytes)} bytes in all: **${int(upsertPerStep)} B per step**, of ${int(history.historyBytes / history.steps)} B of history per step`,
        `(${num((100 * history.upsertBytes) / history.historyBytes, 1)}%). Fill and cost are rounded (hundredths, cents) so most steps write only AgentdStep.`,
      ],
    };
  });
}
