/**
 * Benchmark 2, orchestration overhead: steps per second of one session and of 50 concurrent ones
 * against a zero-latency simulator, each against two floors on the same server in the same process
 * (bench/floor: a workflow of the same two activities per step, doing nothing, or doing only the
 * least I/O a step needs); where a step's time goes, from the three histories; and the worker's RSS
 * per session with 500 sessions idle, waiting
 * for a message — the worker in a child process, so its RSS is the worker's alone; the baseline is
 * the same worker with no session open — with the latency of waking a cached session against an
 * evicted one (replayed).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { join } from 'node:path';
import { DEFAULT_WORKFLOW_CACHE_SIZE } from '../src/config/engineTuning';
import { startSimulator } from '../src/simulator/server';
import { SessionStatus } from '../src/session/state';
import type { Stack } from '../harness/stack';
import { startWorkerProcess } from '../harness/workerProcess';
import { createModelClient } from '../src/model/client';
import { ioFloorActivities } from './floor/activities';
import { startFixedReplyModel } from './floor/fixedReplyModel';
import { withFloorWorker } from './floor/floorRun';
import { inBatches } from '../harness/batches';
import { rssBytes } from './lib/proc';
import { int, mb, num, ratio, say, table, type BenchBody } from './lib/result';
import { timelineOf, type Timeline } from './lib/stepTimeline';

const SINGLE_STEPS = 100;
const CONCURRENT = 50;
const CONCURRENT_STEPS = 10;
const IDLE = 500;
/** Sessions started (or terminated) at once: enough to keep the worker busy, few enough for the dev server. */
const BATCH = 25;
const OUTPUT = 'output=1000-1000';
/** Let the worker's heap settle before RSS is read. */
const SETTLE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often the sessions not yet seen waiting are queried again: queries load the worker being measured. */
const POLL_MS = 3_000;
const WAIT_LIMIT_MS = 600_000;

async function allWaiting(stack: Stack, handles: readonly WorkflowHandle[]): Promise<void> {
  let pending = [...handles];
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (pending.length > 0) {
    if (Date.now() > deadline) throw new Error(`${pending.length} of ${handles.length} sessions were still not waiting for a message after ${WAIT_LIMIT_MS / 1000} s`);
    await sleep(POLL_MS);
    const states = await inBatches(pending, BATCH, (handle) => stack.sessions.state(handle.workflowId).catch(() => undefined));
    pending = pending.filter((_, index) => states[index]?.status !== SessionStatus.waitingForMessage);
  }
}

/** How big each throughput run is; the test runs the same harness at a small scale. */
export interface ThroughputScale {
  readonly singleSteps: number;
  readonly concurrent: number;
  readonly concurrentSteps: number;
  /** Rounds of floor-then-agentd; alternating keeps a change of load on the machine from favouring one. */
  readonly rounds: number;
}

export const FULL_SCALE: ThroughputScale = { singleSteps: SINGLE_STEPS, concurrent: CONCURRENT, concurrentSteps: CONCURRENT_STEPS, rounds: 3 };

/** Steps and wall time summed over the rounds of one workload. */
export interface Throughput {
  readonly steps: number;
  readonly seconds: number;
  readonly perRound: readonly number[];
}

/** agentd beside the bare floor and the I/O floor, each one workload. */
export interface Contenders<T> {
  readonly agentd: T;
  readonly floor: T;
  readonly ioFloor: T;
}

export interface FloorComparison {
  readonly single: Contenders<Throughput>;
  readonly concurrent: Contenders<Throughput>;
  /** The last round's single workflow of each, read from its history. */
  readonly timelines: Contenders<StepTimeline>;
}

export interface StepTimeline extends Timeline {
  readonly steps: number;
}

const rate = (run: { steps: number; seconds: number }) => run.steps / run.seconds;

function summed(runs: readonly { steps: number; seconds: number }[]): Throughput {
  return {
    steps: runs.reduce((sum, run) => sum + run.steps, 0),
    seconds: runs.reduce((sum, run) => sum + run.seconds, 0),
    perRound: runs.map((run) => run.steps / run.seconds),
  };
}

/** `count` agentd sessions of `steps` steps at once, against the zero-latency simulator. */
async function agentdSessions(stack: Stack, count: number, steps: number, label: string) {
  const started = performance.now();
  const handles = await Promise.all(
    Array.from({ length: count }, (_, n) =>
      stack.sessions.start({ task: `${label} ${n} [sim steps=${steps} ${OUTPUT}]`, model: 'agentd-sim', maxSteps: steps + 10 }),
    ),
  );
  const results = await Promise.all(handles.map((handle) => stack.sessions.result(handle.workflowId)));
  const workflowIds = handles.map((handle) => handle.workflowId);
  return { steps: results.reduce((sum, result) => sum + result.steps, 0), seconds: (performance.now() - started) / 1000, workflowIds };
}

type Run = { steps: number; seconds: number; workflowIds: readonly string[] };

/**
 * agentd against the bare floor and the I/O floor, same server, same process, same worker
 * settings, same store: 1 session and `concurrent` sessions, each workload in `rounds` rounds of
 * floor, I/O floor, agentd.
 */
export async function compareWithFloor(stack: Stack, scale: ThroughputScale): Promise<FloorComparison> {
  const single: Contenders<Run[]> = { agentd: [], floor: [], ioFloor: [] };
  const concurrent: Contenders<Run[]> = { agentd: [], floor: [], ioFloor: [] };
  const fixedReply = await startFixedReplyModel();
  try {
    const ioKind = { name: 'io', activities: ioFloorActivities(stack.store, createModelClient({ baseURL: fixedReply.baseURL })) };
    await stack.withWorker({}, () =>
      withFloorWorker(stack, (floor) =>
        withFloorWorker(
          stack,
          async (ioFloor) => {
            // Warm-up of all three, so none pays for loading its bundle or the store's first statements.
            await floor.run(1, 2);
            await ioFloor.run(1, 2);
            await agentdSessions(stack, 1, 2, 'warm-up');
            for (let round = 0; round < scale.rounds; round++) {
              single.floor.push(await floor.run(1, scale.singleSteps));
              single.ioFloor.push(await ioFloor.run(1, scale.singleSteps));
              single.agentd.push(await agentdSessions(stack, 1, scale.singleSteps, 'one session'));
              concurrent.floor.push(await floor.run(scale.concurrent, scale.concurrentSteps));
              concurrent.ioFloor.push(await ioFloor.run(scale.concurrent, scale.concurrentSteps));
              concurrent.agentd.push(await agentdSessions(stack, scale.concurrent, scale.concurrentSteps, 'concurrent session'));
            }
          },
          ioKind,
        ),
      ),
    );
  } finally {
    await fixedReply.stop();
  }
  const lastOf = async (list: readonly Run[]): Promise<StepTimeline> => {
    const last = list[list.length - 1]!;
    return { ...(await timelineOf(stack.client, last.workflowIds[0]!)), steps: last.steps };
  };
  return {
    single: { agentd: summed(single.agentd), floor: summed(single.floor), ioFloor: summed(single.ioFloor) },
    concurrent: { agentd: summed(concurrent.agentd), floor: summed(concurrent.floor), ioFloor: summed(concurrent.ioFloor) },
    timelines: { agentd: await lastOf(single.agentd), floor: await lastOf(single.floor), ioFloor: await lastOf(single.ioFloor) },
  };
}

/** Wakes measured of each kind; their median is reported. */
const WAKES = 5;
/** Sessions queried between two wakes of an evicted one: more than the cache holds, so it is out for sure. */
const EVICTING_TOUCHES = DEFAULT_WORKFLOW_CACHE_SIZE + 25;

interface Wakes {
  readonly cachedMs: readonly number[];
  readonly evictedMs: readonly number[];
}

/**
 * Message to model request: how long after `send` the woken session's model call reaches the
 * simulator. A session queried just before is in the worker's cache; one followed by more queries
 * to other sessions than the cache holds is not, and replays its run's history first.
 */
async function wakeLatencies(stack: Stack, handles: readonly WorkflowHandle[], requestSeen: (tag: string) => Promise<void>): Promise<Wakes> {
  const cachedMs: number[] = [];
  const evictedMs: number[] = [];
  const touch = (list: readonly WorkflowHandle[]) => inBatches(list, BATCH, (handle) => stack.sessions.state(handle.workflowId));
  const wake = async (handle: WorkflowHandle, tag: string) => {
    const seen = requestSeen(tag);
    const started = performance.now();
    await stack.sessions.send(handle.workflowId, `wake up ${tag} [sim steps=0]`);
    await seen;
    return performance.now() - started;
  };
  for (let n = 0; n < WAKES; n++) {
    const evicted = handles[n]!;
    const others = handles.slice(WAKES + n * EVICTING_TOUCHES, WAKES + (n + 1) * EVICTING_TOUCHES);
    await touch(others.length >= EVICTING_TOUCHES ? others : handles.slice(-EVICTING_TOUCHES));
    evictedMs.push(await wake(evicted, `evicted-${n}`));
    const cached = handles[handles.length - 1 - n]!;
    await touch([cached]);
    cachedMs.push(await wake(cached, `cached-${n}`));
  }
  return { cachedMs, evictedMs };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export async function idleRss(stack: Stack, workerEnv: NodeJS.ProcessEnv = {}) {
  const waiting = new Map<string, () => void>();
  const simulator = await startSimulator({
    observe: (request) => {
      const last = request.messages[request.messages.length - 1];
      if (last?.role !== 'user' || typeof last.content !== 'string') return;
      for (const [tag, resolve] of waiting) if (last.content.includes(tag)) resolve();
    },
  });
  const requestSeen = (tag: string) => new Promise<void>((resolve) => waiting.set(tag, resolve)).finally(() => waiting.delete(tag));
  const worker = startWorkerProcess({
    temporalAddress: stack.temporal.address,
    storeFile: join(stack.dir, 'rss-transcripts.db'),
    workspaceRoot: join(stack.dir, 'rss-workspaces'),
    modelBaseURL: simulator.baseURL,
    extra: { AGENTD_WORKFLOW_CACHE_SIZE: String(DEFAULT_WORKFLOW_CACHE_SIZE), ...workerEnv },
  });
  const handles: WorkflowHandle[] = [];
  try {
    // Warm-up: one whole session, so the bundle, the SQLite store and the HTTP client are all loaded.
    const warm = await stack.sessions.start({ task: 'warm up [sim steps=1]', model: 'agentd-sim' });
    await stack.sessions.result(warm.workflowId);
    await sleep(SETTLE_MS);
    const baseline = rssBytes(worker.pid);

    const started = performance.now();
    handles.push(
      ...(await inBatches(
        Array.from({ length: IDLE }, (_, n) => n),
        BATCH,
        (n) => stack.sessions.start({ task: `idle session ${n} [sim steps=0]`, model: 'agentd-sim', awaitMessagesSeconds: 86_400 }),
      )),
    );
    // Each has finished its first turn and waits for a message (a timer in the workflow); the
    // worker keeps the most recent DEFAULT_WORKFLOW_CACHE_SIZE of them in its cache.
    await allWaiting(stack, handles);
    const settledSeconds = (performance.now() - started) / 1000;
    await sleep(SETTLE_MS);
    const loaded = rssBytes(worker.pid);
    const wakes = await wakeLatencies(stack, handles, requestSeen);
    return { baseline, loaded, settledSeconds, wakes };
  } finally {
    await inBatches(handles, BATCH, (handle) => handle.terminate('benchmark done').catch(() => undefined));
    await worker.stop();
    await simulator.stop();
  }
}

const perStep = (ms: number, timeline: StepTimeline) => `${num(ms / timeline.steps, 1)} ms`;

/** The phases of a step, the floors beside agentd, from the three single-workflow histories. */
function timelineRows(timelines: Contenders<StepTimeline>): string[][] {
  const columns = [timelines.floor, timelines.ioFloor, timelines.agentd];
  const model = (timeline: StepTimeline) => (timeline.activityRunMs.floorModel ?? 0) + (timeline.activityRunMs.callModel ?? 0);
  const tool = (timeline: StepTimeline) => (timeline.activityRunMs.floorTool ?? 0) + (timeline.activityRunMs.runTool ?? 0);
  const other = (timeline: StepTimeline) => Object.values(timeline.activityRunMs).reduce((sum, ms) => sum + ms, 0) - model(timeline) - tool(timeline);
  const accounted = (timeline: StepTimeline) =>
    timeline.workflowTaskDispatchMs + timeline.workflowTaskRunMs + timeline.activityDispatchMs + model(timeline) + tool(timeline) + other(timeline);
  const row = (label: string, of: (timeline: StepTimeline) => number) => [label, ...columns.map((timeline) => perStep(of(timeline), timeline))];
  const count = (label: string, of: (timeline: StepTimeline) => number) => [label, ...columns.map((timeline) => num(of(timeline) / timeline.steps, 2))];
  return [
    count('workflow tasks per step', (timeline) => timeline.workflowTasks),
    count('activities per step', (timeline) => timeline.activities),
    count('local activities per step (quick reads, run inside a workflow task)', (timeline) => timeline.localActivities),
    row('workflow task scheduled → started (server hands it to the worker)', (timeline) => timeline.workflowTaskDispatchMs),
    row('workflow task started → completed (worker runs the workflow code, replies)', (timeline) => timeline.workflowTaskRunMs),
    row('activity scheduled → started (0 when eager)', (timeline) => timeline.activityDispatchMs),
    row('model activity started → completed', model),
    row('tool activity started → completed', tool),
    row('other activities (storeMessages at open, claimWorkspace)', other),
    row('rest (between one event and the next task)', (timeline) => timeline.totalMs - accounted(timeline)),
    row('**whole step**', (timeline) => timeline.totalMs),
  ];
}

function figuresOf(runs: Contenders<Throughput>, rates: Contenders<number>) {
  return {
    agentd: { ...runs.agentd, stepsPerSecond: rates.agentd },
    floor: { ...runs.floor, stepsPerSecond: rates.floor },
    ioFloor: { ...runs.ioFloor, stepsPerSecond: rates.ioFloor },
    agentdOverFloor: rates.agentd / rates.floor,
    ioFloorOverFloor: rates.ioFloor / rates.floor,
    agentdOverIoFloor: rates.agentd / rates.ioFloor,
  };
}

function throughputRow(label: string, rates: Contenders<number>, runs: Contenders<Throughput>): string[] {
  const rounds = (run: Throughput) => run.perRound.map((value) => num(value, 1)).join(', ');
  return [
    label,
    `**${num(rates.agentd, 1)}**`,
    num(rates.floor, 1),
    num(rates.ioFloor, 1),
    `**${ratio(rates.agentd, rates.floor)}**`,
    ratio(rates.ioFloor, rates.floor),
    ratio(rates.agentd, rates.ioFloor),
    `${rounds(runs.agentd)} / ${rounds(runs.floor)} / ${rounds(runs.ioFloor)}`,
  ];
}

export async function overheadBench(stack: Stack): Promise<BenchBody> {
  const scale = FULL_SCALE;
  const speed = await compareWithFloor(stack, scale);
  const rates = (run: Contenders<Throughput>) => ({ agentd: rate(run.agentd), floor: rate(run.floor), ioFloor: rate(run.ioFloor) });
  const single = rates(speed.single);
  const concurrent = rates(speed.concurrent);
  const sayRates = (label: string, of: Contenders<number>) =>
    say(
      `${label}: agentd ${num(of.agentd, 1)} steps/s, floor ${num(of.floor, 1)} → ${ratio(of.agentd, of.floor)} the floor; ` +
        `I/O floor ${num(of.ioFloor, 1)} (${ratio(of.ioFloor, of.floor)} the floor; agentd ${ratio(of.agentd, of.ioFloor)} of it)`,
    );
  sayRates('1 session', single);
  sayRates(`${scale.concurrent} sessions`, concurrent);
  const rss = await idleRss(stack);
  const perSession = (rss.loaded - rss.baseline) / IDLE;
  const wake = { cached: median(rss.wakes.cachedMs), evicted: median(rss.wakes.evictedMs) };
  say(`worker RSS: ${mb(rss.baseline)} with no session, ${mb(rss.loaded)} with ${IDLE} idle → ${int(perSession / 1024)} KB per idle session (${ratio(rss.loaded, rss.baseline)} the baseline)`);
  say(`wake (message → model request), median of ${WAKES}: cached ${num(wake.cached, 0)} ms, evicted ${num(wake.evicted, 0)} ms`);
  const { timelines } = speed;
  return {
    figures: {
      simulatorLatencyMs: 0,
      rounds: scale.rounds,
      single: { steps: scale.singleSteps, ...figuresOf(speed.single, single) },
      concurrent: { sessions: scale.concurrent, stepsEach: scale.concurrentSteps, ...figuresOf(speed.concurrent, concurrent) },
      timelines,
      idle: {
        sessions: IDLE,
        workflowCacheSize: DEFAULT_WORKFLOW_CACHE_SIZE,
        baselineRssBytes: rss.baseline,
        loadedRssBytes: rss.loaded,
        bytesPerSession: perSession,
        secondsToSettle: rss.settledSeconds,
        wakeMs: { cached: rss.wakes.cachedMs, evicted: rss.wakes.evictedMs, cachedMedian: wake.cached, evictedMedian: wake.evicted },
      },
    },
    markdown: [
      'The simulator answers at once (no latency); tool outputs are 1,000 bytes every fourth step. An agentd step is a model call',
      'and its tool call, each an activity (a quick read a local one, inside a workflow task), with a compaction decision',
      'before it. Two floors run the same workflow (bench/floor/workflows.ts, bundled apart from agentd: two activities',
      'per step) with the same worker settings (ENGINE_TUNING.worker) on the same dev server (started with',
      'ENGINE_TUNING.server), in this process:',
      '',
      '- the **floor**: both activities do nothing, so its step is Temporal and the worker alone;',
      '- the **I/O floor**: the least I/O any agent step needs and nothing else. The model activity makes one chat completion',
      '  through the real `openai` client to a fixed-reply endpoint (bench/floor/fixedReplyModel.ts) and stores the reply in the',
      "  same SQLite transcript store agentd uses; the tool activity stores a result (the store counts each row's tokens, as for agentd). No context read, no tool,",
      '  no compaction decision: agentd cannot beat it, so its ratio to the floor bounds what agentd can reach.',
      '',
      `Each workload ran ${scale.rounds} times, floor, I/O floor, then agentd, so a change of load on the machine hits all three;`,
      'figures are all steps over all wall time.',
      '',
      ...table(
        ['workload', 'agentd steps / s', 'floor', 'I/O floor', 'agentd ÷ floor', 'I/O floor ÷ floor', 'agentd ÷ I/O floor', 'per round (agentd / floor / I/O floor)'],
        [
          throughputRow(`1 session × ${scale.singleSteps} steps`, single, speed.single),
          throughputRow(`${scale.concurrent} sessions × ${scale.concurrentSteps} steps`, concurrent, speed.concurrent),
        ],
      ),
      '',
      `Where a step's time goes (the last round's single workflow of each, from its history's event times; ${int(timelines.floor.steps)}`,
      `floor steps, ${int(timelines.agentd.steps)} agentd steps — agentd's last step is the answer, with no tool call):`,
      '',
      ...table(['per step', 'floor', 'I/O floor', 'agentd'], timelineRows(timelines)),
      '',
      `Worker RSS (child process \`node dist/src/worker.js\`, workflow cache ${DEFAULT_WORKFLOW_CACHE_SIZE} sessions, read from /proc):`,
      `**${mb(rss.baseline)}** after one warm-up session with none open; **${mb(rss.loaded)}** with ${IDLE} sessions that finished`,
      `their first turn and wait for a message (\`awaitMessagesSeconds\` one day; ${num(rss.settledSeconds, 0)} s to start them and see`,
      `them all waiting). Per idle session: **${int(perSession / 1024)} KB** (loaded ÷ baseline ${ratio(rss.loaded, rss.baseline)}).`,
      '',
      `Waking a session (message sent → its model request reaches the simulator), median of ${WAKES} each: **${num(wake.cached, 0)} ms**`,
      `when it is in the cache, **${num(wake.evicted, 0)} ms** when it was evicted and replays its run's history first`,
      `(${ratio(wake.evicted, wake.cached)}). Cached: ${rss.wakes.cachedMs.map((ms) => num(ms, 0)).join(', ')} ms; evicted: ${rss.wakes.evictedMs.map((ms) => num(ms, 0)).join(', ')} ms.`,
    ],
  };
}
