/**
 * Benchmark 2, orchestration overhead: steps per second of one session and of 50 concurrent ones
 * against a zero-latency simulator (so the time is agentd's and Temporal's), and the worker's RSS
 * per session with 500 sessions idle, waiting for a message — the worker in a child process, so its
 * RSS is the worker's alone; the baseline is the same worker with no session open.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator } from '../src/simulator/server';
import { SessionStatus } from '../src/session/state';
import type { Stack } from '../test/helpers/stack';
import { startWorkerProcess } from '../test/helpers/workerProcess';
import { int, mb, num, ratio, say, table, type BenchBody } from './lib/result';

const SINGLE_STEPS = 100;
const CONCURRENT = 50;
const CONCURRENT_STEPS = 10;
const IDLE = 500;
/** Sessions started (or terminated) at once: enough to keep the worker busy, few enough for the dev server. */
const BATCH = 25;
const OUTPUT = 'output=1000-1000';
/** Let the worker's heap settle before RSS is read. */
const SETTLE_MS = 5_000;

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'));
  const kib = line === undefined ? Number.NaN : Number(/(\d+)/.exec(line)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for process ${pid} (Linux /proc is needed for this benchmark)`);
  return kib * 1024;
}

async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += BATCH) results.push(...(await Promise.all(items.slice(start, start + BATCH).map(work))));
  return results;
}

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
    const states = await inBatches(pending, (handle) => stack.sessions.state(handle.workflowId).catch(() => undefined));
    pending = pending.filter((_, index) => states[index]?.status !== SessionStatus.waitingForMessage);
  }
}

async function throughput(stack: Stack) {
  return stack.withWorker({}, async () => {
    let started = performance.now();
    const single = await stack.sessions.start({ task: `one session [sim steps=${SINGLE_STEPS} ${OUTPUT}]`, model: 'agentd-sim', maxSteps: SINGLE_STEPS + 10 });
    const singleResult = await stack.sessions.result(single.workflowId);
    const singleSeconds = (performance.now() - started) / 1000;

    started = performance.now();
    const handles = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, n) =>
        stack.sessions.start({ task: `concurrent session ${n} [sim steps=${CONCURRENT_STEPS} ${OUTPUT}]`, model: 'agentd-sim' }),
      ),
    );
    const results = await Promise.all(handles.map((handle) => stack.sessions.result(handle.workflowId)));
    const concurrentSeconds = (performance.now() - started) / 1000;
    const concurrentSteps = results.reduce((sum, result) => sum + result.steps, 0);
    return { singleSteps: singleResult.steps, singleSeconds, concurrentSteps, concurrentSeconds };
  });
}

async function idleRss(stack: Stack) {
  const simulator = await startSimulator({});
  const worker = startWorkerProcess({
    temporalAddress: stack.temporal.address,
    storeFile: join(stack.dir, 'rss-transcripts.db'),
    workspaceRoot: join(stack.dir, 'rss-workspaces'),
    modelBaseURL: simulator.baseURL,
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
        (n) => stack.sessions.start({ task: `idle session ${n} [sim steps=0]`, model: 'agentd-sim', awaitMessagesSeconds: 86_400 }),
      )),
    );
    // Each has finished its first turn and waits for a message (a timer in the workflow, cached in the worker).
    await allWaiting(stack, handles);
    const settledSeconds = (performance.now() - started) / 1000;
    await sleep(SETTLE_MS);
    const loaded = rssBytes(worker.pid);
    return { baseline, loaded, settledSeconds };
  } finally {
    await inBatches(handles, (handle) => handle.terminate('benchmark done').catch(() => undefined));
    await worker.stop();
    await simulator.stop();
  }
}

export async function overheadBench(stack: Stack): Promise<BenchBody> {
  const speed = await throughput(stack);
  const singleRate = speed.singleSteps / speed.singleSeconds;
  const concurrentRate = speed.concurrentSteps / speed.concurrentSeconds;
  say(`1 session: ${speed.singleSteps} steps in ${num(speed.singleSeconds, 1)} s = ${num(singleRate, 1)} steps/s`);
  say(`${CONCURRENT} sessions: ${speed.concurrentSteps} steps in ${num(speed.concurrentSeconds, 1)} s = ${num(concurrentRate, 1)} steps/s (${ratio(concurrentRate, singleRate)} one session)`);
  const rss = await idleRss(stack);
  const perSession = (rss.loaded - rss.baseline) / IDLE;
  say(`worker RSS: ${mb(rss.baseline)} with no session, ${mb(rss.loaded)} with ${IDLE} idle → ${int(perSession / 1024)} KB per idle session (${ratio(rss.loaded, rss.baseline)} the baseline)`);
  return {
    figures: {
      simulatorLatencyMs: 0,
      single: { steps: speed.singleSteps, seconds: speed.singleSeconds, stepsPerSecond: singleRate },
      concurrent: { sessions: CONCURRENT, steps: speed.concurrentSteps, seconds: speed.concurrentSeconds, stepsPerSecond: concurrentRate },
      concurrentOverSingle: concurrentRate / singleRate,
      idle: { sessions: IDLE, baselineRssBytes: rss.baseline, loadedRssBytes: rss.loaded, bytesPerSession: perSession, secondsToSettle: rss.settledSeconds },
    },
    markdown: [
      'The simulator answers at once (no latency); tool outputs are 1,000 bytes every fourth step. A step is a model call plus',
      'its tool calls, each an activity, with a compaction decision before it; everything goes through the dev server.',
      '',
      ...table(
        ['workload', 'steps', 'wall time', 'steps / s'],
        [
          ['1 session', int(speed.singleSteps), `${num(speed.singleSeconds, 1)} s`, `**${num(singleRate, 1)}**`],
          [`${CONCURRENT} concurrent sessions`, int(speed.concurrentSteps), `${num(speed.concurrentSeconds, 1)} s`, `**${num(concurrentRate, 1)}**`],
        ],
      ),
      '',
      `${CONCURRENT} concurrent ÷ 1 session: **${ratio(concurrentRate, singleRate)}** the throughput (the worker, the dev server and this process share 2 cores).`,
      '',
      `Worker RSS (child process \`node dist/src/worker.js\`, read from /proc): **${mb(rss.baseline)}** after one warm-up session with none open;`,
      `**${mb(rss.loaded)}** with ${IDLE} sessions that finished their first turn and wait for a message (\`awaitMessagesSeconds\` one day,`,
      `all in the worker's workflow cache; ${num(rss.settledSeconds, 0)} s to start them and see them all waiting). Per idle session:`,
      `**${int(perSession / 1024)} KB** (loaded ÷ baseline ${ratio(rss.loaded, rss.baseline)}).`,
    ],
  };
}
