/**
 * One cell of the scale benchmark: `sessions` sessions of one contender (agentd, or the I/O floor's
 * workflow) stepping at once on one server, against a model that takes `latencyMs` to answer, with
 * `workers` worker processes. Once every session is past its first steps, a window of
 * `windowSeconds` counts the steps, the CPU each process spent (from /proc), and the time of each
 * step beyond the model's own; then every session is terminated and the workers killed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/devServer/freePort';
import { startSimulator } from '../../src/simulator/server';
import { startPollingWorker, type WorkerProcess } from '../../harness/workerProcess';
import { startFixedReplyModel } from '../floor/fixedReplyModel';
import { inBatches } from '../../harness/batches';
import { cpuPressureMicros, cpuReading, cpuSpent, rssBytes } from '../lib/proc';
import { historyWriteTotals, historyWritesBetween, type HistoryWrites } from './historyWrites';
import type { ScaleServer } from './servers';
import { percentile, StepClock } from './stepClock';
import { workerTaskTotals, workerTasksBetween, type WorkerTasks } from './workerTasks';

export type Contender = 'agentd' | 'ioFloor';

export interface CellSpec {
  readonly server: ScaleServer;
  readonly contender: Contender;
  readonly workers: number;
  readonly sessions: number;
  readonly latencyMs: number;
  readonly windowSeconds: number;
}

export interface CellResult {
  readonly server: string;
  readonly contender: Contender;
  readonly workers: number;
  readonly sessions: number;
  /** Sessions answered WARM_ANSWERS times before the window opened. */
  readonly sessionsStepping: number;
  readonly steps: number;
  readonly seconds: number;
  readonly stepsPerSecond: number;
  /** sessions ÷ model latency: every session always waiting on the model. */
  readonly idealStepsPerSecond: number;
  /** CPU ms spent in the window: all worker processes, the Temporal server, its database, this process (the model and the client). */
  readonly cpuMs: { readonly workers: number; readonly server: number; readonly database: number; readonly bench: number };
  readonly workerRssBytes: { readonly before: number; readonly after: number };
  /** A step's time beyond the model's latency, ms, over every step that began and ended in the window. */
  readonly beyondModelMs: { readonly p50: number; readonly p99: number; readonly samples: number };
  /** Share of the window in which a runnable thread waited for a core (/proc/pressure/cpu); absent where the kernel keeps none. */
  readonly cpuPressure?: number;
  /** The workers' tasks in the window, from their metrics endpoints. */
  readonly workerTasks: WorkerTasks;
  /** The server's history writes in the window, from its metrics endpoint (the cluster's). */
  readonly historyWrites?: HistoryWrites;
}

/** Started in this many at a time: enough to start 1,000 sessions in seconds, few enough for the dev server. */
const START_BATCH = 50;
/**
 * Answers a session has had before the window opens. The step between a session's first and second
 * answer runs its first tool call, which claims a workspace and costs more than any later step; a
 * window that opens only on time (two model latencies) counts those steps once a step takes longer
 * than that, which it does past the knee.
 */
const WARM_ANSWERS = 3;
/** Longest wait for every session to warm up; an overloaded cell opens its window anyway and says how many did. */
const SETTLE_LIMIT_MS = 240_000;
const FLOOR_TASK_QUEUE = 'agentd-bench-scale-floor';
const STEPS_WITHOUT_END = 100_000;
/** agentd's worker says this once it polls; the floor's worker says `polling`. */
const READY_LINE = /^(agentd worker on |polling$)/;

let cells = 0;

/** The model both contenders call: the simulator for agentd, the fixed reply for the floor, each telling the clock whose step ended. */
async function startModel(contender: Contender, latencyMs: number, clock: StepClock) {
  if (contender === 'ioFloor') {
    return startFixedReplyModel({
      latencyMs,
      onAnswer: (body) => {
        const session = /io-floor-(scale-[\w-]+) step/.exec(body)?.[1];
        if (session !== undefined) clock.answered(session);
      },
    });
  }
  return startSimulator({
    latencyMs,
    observe: (request) => {
      if (request.summarizing) return;
      const task = request.messages.find((message) => message.role === 'user');
      const session = typeof task?.content === 'string' ? /scale-[\w-]+/.exec(task.content)?.[0] : undefined;
      if (session !== undefined) clock.answered(session);
    },
  });
}

/** A worker process and where it serves its metrics. */
interface CellWorker {
  readonly process: WorkerProcess;
  readonly metricsUrl: string;
}

async function startWorker(spec: CellSpec, modelBaseURL: string, workspaceRoot: string): Promise<CellWorker> {
  const metricsAddress = `127.0.0.1:${await freePort()}`;
  const worker = await startPollingWorker(
    {
      temporalAddress: spec.server.address,
      storeFile: spec.server.store,
      workspaceRoot,
      modelBaseURL,
      ...(spec.contender === 'ioFloor' ? { script: require.resolve('../floor/floorWorker') } : {}),
      extra: {
        // Every stepping session stays cached: a worker that replays each session at every step measures its cache, not its cost.
        AGENTD_WORKFLOW_CACHE_SIZE: String(Math.max(spec.sessions, 2)),
        AGENTD_FLOOR_TASK_QUEUE: FLOOR_TASK_QUEUE,
        AGENTD_LOG_LEVEL: 'ERROR',
        AGENTD_METRICS_ADDRESS: metricsAddress,
      },
    },
    { readyLine: READY_LINE },
  ).catch((error: unknown) => {
    throw new Error(`the ${spec.contender} worker did not start`, { cause: error });
  });
  return { process: worker, metricsUrl: `http://${metricsAddress}/metrics` };
}

function startSession(spec: CellSpec, id: string): Promise<string> {
  if (spec.contender === 'ioFloor') {
    return spec.server.client.workflow
      .start('floorSession', { taskQueue: FLOOR_TASK_QUEUE, workflowId: id, args: [STEPS_WITHOUT_END] })
      .then((handle) => handle.workflowId);
  }
  return spec.server.sessions
    .start({ task: `${id} [sim steps=${STEPS_WITHOUT_END} commands=off output=200-200]`, model: 'agentd-sim', maxSteps: STEPS_WITHOUT_END })
    .then((handle) => handle.workflowId);
}

async function untilAllWarm(clock: StepClock, sessions: number): Promise<void> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  while (clock.sessionsAnswered(WARM_ANSWERS) < sessions && Date.now() < deadline) await sleep(250);
}

export async function runCell(spec: CellSpec, log: (line: string) => void): Promise<CellResult> {
  const clock = new StepClock();
  const model = await startModel(spec.contender, spec.latencyMs, clock);
  const cell = ++cells;
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'agentd-bench-scale-'));
  const workers: CellWorker[] = [];
  const workflowIds: string[] = [];
  try {
    workers.push(...(await Promise.all(Array.from({ length: spec.workers }, () => startWorker(spec, model.baseURL, workspaceRoot)))));
    const workerPids = workers.map((worker) => worker.process.pid);
    const metricsUrls = workers.map((worker) => worker.metricsUrl);
    const rssOfWorkers = () => workerPids.reduce((sum, pid) => sum + rssBytes(pid), 0);
    const rssBefore = rssOfWorkers();
    const ids = Array.from({ length: spec.sessions }, (_, n) => `scale-${process.pid}-${cell}-${n}`);
    workflowIds.push(...(await inBatches(ids, START_BATCH, (id) => startSession(spec, id))));
    await untilAllWarm(clock, spec.sessions);
    const sessionsStepping = clock.sessionsAnswered(WARM_ANSWERS);

    // A backend that connects during the window has no earlier reading and could not count anyway.
    const databasePids = spec.server.databasePids();
    const processes = () => [...workerPids, spec.server.serverPid, ...databasePids];
    const { metricsUrl } = spec.server;
    const writesBefore = metricsUrl === undefined ? undefined : await historyWriteTotals(metricsUrl);
    const tasksBefore = await workerTaskTotals(metricsUrls);
    const before = { cpu: cpuReading(processes()), bench: process.cpuUsage(), pressure: cpuPressureMicros() };
    clock.startWindow();
    await sleep(spec.windowSeconds * 1000);
    const counted = clock.endWindow();
    const after = { cpu: cpuReading(processes()), bench: process.cpuUsage(before.bench), pressure: cpuPressureMicros() };
    const writesAfter = metricsUrl === undefined ? undefined : await historyWriteTotals(metricsUrl);
    const tasksAfter = await workerTaskTotals(metricsUrls);
    const rssAfter = rssOfWorkers();

    const spentBy = (pids: readonly number[]) => cpuSpent(before.cpu, after.cpu, pids);
    const beyondModel = counted.stepIntervalsMs.map((ms) => ms - spec.latencyMs);
    return {
      server: spec.server.name,
      contender: spec.contender,
      workers: spec.workers,
      sessions: spec.sessions,
      sessionsStepping,
      steps: counted.steps,
      seconds: counted.seconds,
      stepsPerSecond: counted.steps / counted.seconds,
      idealStepsPerSecond: spec.sessions / (spec.latencyMs / 1000),
      cpuMs: {
        workers: spentBy(workerPids),
        server: spentBy([spec.server.serverPid]),
        database: spentBy(databasePids),
        bench: (after.bench.user + after.bench.system) / 1000,
      },
      workerRssBytes: { before: rssBefore, after: rssAfter },
      beyondModelMs: { p50: percentile(beyondModel, 0.5), p99: percentile(beyondModel, 0.99), samples: beyondModel.length },
      ...(before.pressure !== undefined && after.pressure !== undefined ? { cpuPressure: (after.pressure - before.pressure) / (counted.seconds * 1e6) } : {}),
      workerTasks: workerTasksBetween(tasksBefore, tasksAfter),
      ...(writesBefore && writesAfter ? { historyWrites: historyWritesBetween(writesBefore, writesAfter) } : {}),
    };
  } finally {
    const terminated = await inBatches(workflowIds, 100, (id) =>
      spec.server.client.workflow
        .getHandle(id)
        .terminate('scale benchmark cell done')
        .then(() => 1)
        .catch(() => 0),
    );
    if (terminated.length > 0) log(`    terminated ${terminated.reduce((sum: number, one) => sum + one, 0)} of ${workflowIds.length} sessions`);
    await Promise.all(workers.map((worker) => worker.process.stop('SIGKILL')));
    await model.stop();
    await rm(workspaceRoot, { recursive: true, force: true });
  }
}
