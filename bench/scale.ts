/**
 * The fleet at real model latency: 20, 50, 200 and 1,000 sessions stepping at once against a model
 * that takes 2 s to answer, with one worker process and then two, on the dev server and on the
 * real cluster (scripts/temporal-cluster.sh). Each cell runs agentd and then the I/O floor's
 * workflow (bench/floor, its worker a process of its own too) the same way, and reads steps per
 * second against the ideal (sessions ÷ latency), the CPU per step of the workers, the server and
 * its database from /proc, worker RSS per session, a step's time beyond the model's, and the workers'
 * tasks per step from their own metrics.
 *
 * `--scale-sessions=50,200`, `--scale-workers=1`, `--scale-servers=dev` and `--scale-window=20`
 * narrow a run.
 */
import { cpus } from 'node:os';
import type { Stack } from '../harness/stack';
import { int, mb, num, say, table, type BenchBody } from './lib/result';
import {
  KNEE_SHARE,
  kneesOf,
  marginalRssPerSession,
  ofIdeal,
  pairsOf,
  perStep,
  predictHost,
  profile,
  WORKER_CPU_LIMIT,
  workerCpuRatio,
  type Knee,
  type Pair,
} from './scale/analysis';
import { runCell, type CellResult, type Contender } from './scale/cell';
import { clusterServer, devServerOf, type ScaleServer } from './scale/servers';

const LATENCY_MS = 2_000;
const PREDICTED_CORES = 16;

interface ScaleOptions {
  readonly sessions: readonly number[];
  readonly workers: readonly number[];
  readonly servers: readonly ('dev' | 'cluster')[];
  readonly windowSeconds: number;
}

function listOption(argv: readonly string[], name: string): string[] | undefined {
  const value = argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  return value?.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

function wholeNumbers(argv: readonly string[], name: string, fallback: readonly number[]): number[] {
  const values = listOption(argv, name)?.map(Number) ?? [...fallback];
  const bad = values.find((value) => !Number.isInteger(value) || value < 1);
  if (bad !== undefined || values.length === 0) throw new RangeError(`--${name}: expected whole numbers above 0, comma-separated`);
  return values;
}

/**
 * 20 sessions are below the cluster's knee on 2 cores, where 50 already sit at it: the cluster's
 * step costs about twice the dev server's CPU.
 */
const SESSIONS = [20, 50, 200, 1000] as const;

export function scaleOptions(argv: readonly string[]): ScaleOptions {
  const servers = listOption(argv, 'scale-servers') ?? ['dev', 'cluster'];
  const unknown = servers.filter((server) => server !== 'dev' && server !== 'cluster');
  if (unknown.length > 0 || servers.length === 0) throw new RangeError(`--scale-servers: expected dev and/or cluster, got ${unknown.join(', ') || 'nothing'}`);
  return {
    sessions: wholeNumbers(argv, 'scale-sessions', SESSIONS),
    workers: wholeNumbers(argv, 'scale-workers', [1, 2]),
    servers: servers as ('dev' | 'cluster')[],
    windowSeconds: wholeNumbers(argv, 'scale-window', [30])[0]!,
  };
}

const CONTENDERS: readonly Contender[] = ['ioFloor', 'agentd'];

function sayCell(cell: CellResult): void {
  const [top] = profile(cell);
  say(
    `  ${cell.contender === 'agentd' ? 'agentd ' : 'I/O floor'}: ${num(cell.stepsPerSecond, 1)} steps/s (${num(ofIdeal(cell), 2)} of ideal ${num(cell.idealStepsPerSecond, 0)}), ` +
      `worker ${num(perStep(cell.cpuMs.workers, cell), 2)} ms CPU/step, server ${num(perStep(cell.cpuMs.server + cell.cpuMs.database, cell), 2)} ms/step, ` +
      `beyond model p50 ${num(cell.beyondModelMs.p50, 0)} ms p99 ${num(cell.beyondModelMs.p99, 0)} ms; busiest: ${top?.process} ${num(top?.cores ?? 0, 2)} cores`,
  );
}

async function runServer(server: ScaleServer, options: ScaleOptions): Promise<CellResult[]> {
  const cells: CellResult[] = [];
  for (const workers of options.workers) {
    for (const sessions of options.sessions) {
      say(`${server.name}, ${workers} worker(s), ${int(sessions)} sessions:`);
      for (const contender of CONTENDERS) {
        const cell = await runCell({ server, contender, workers, sessions, latencyMs: LATENCY_MS, windowSeconds: options.windowSeconds }, say);
        sayCell(cell);
        cells.push(cell);
      }
    }
  }
  return cells;
}

export async function scaleBench(stack: Stack, argv: readonly string[]): Promise<BenchBody> {
  const options = scaleOptions(argv);
  const cells: CellResult[] = [];
  for (const name of options.servers) {
    const server = name === 'dev' ? devServerOf(stack) : await clusterServer(say);
    try {
      cells.push(...(await runServer(server, options)));
    } finally {
      await server.close();
    }
  }
  return { figures: { latencyMs: LATENCY_MS, options, cells, knees: kneesOf(cells).map(kneeFigures) }, markdown: scaleReport(cells, options) };
}

function kneeFigures(knee: Knee) {
  return { server: knee.server, workers: knee.workers, contender: knee.contender, lastBelowSessions: knee.lastBelow?.sessions, firstPastSessions: knee.firstPast?.sessions };
}

const cpuCell = (ms: number, cell: CellResult) => num(perStep(ms, cell), 2);

function pairRow(pair: Pair): string[] {
  const { agentd, ioFloor } = pair;
  const ratio = workerCpuRatio(pair);
  return [
    pair.server,
    String(pair.workers),
    int(pair.sessions),
    `${num(agentd.stepsPerSecond, 1)} (**${num(ofIdeal(agentd), 2)}**)`,
    `${num(ioFloor.stepsPerSecond, 1)} (${num(ofIdeal(ioFloor), 2)})`,
    `${cpuCell(agentd.cpuMs.workers, agentd)} / ${cpuCell(ioFloor.cpuMs.workers, ioFloor)} = **${num(ratio, 2)}×**${ratio > WORKER_CPU_LIMIT ? ' ✗' : ''}`,
    `${cpuCell(agentd.cpuMs.server, agentd)} / ${cpuCell(ioFloor.cpuMs.server, ioFloor)}`,
    agentd.cpuMs.database > 0 ? `${cpuCell(agentd.cpuMs.database, agentd)} / ${cpuCell(ioFloor.cpuMs.database, ioFloor)}` : 'in the server',
    `${mb(agentd.workerRssBytes.before)} → ${mb(agentd.workerRssBytes.after)}`,
    `${num(agentd.beyondModelMs.p50, 0)} / ${num(agentd.beyondModelMs.p99, 0)}`,
    `${num(ioFloor.beyondModelMs.p50, 0)} / ${num(ioFloor.beyondModelMs.p99, 0)}`,
  ];
}

const percent = (share: number) => `${num(share * 100, 0)}%`;

function profileRow(cell: CellResult): string[] {
  const parts = profile(cell).map((part) => `${part.process} ${num(part.cores, 2)}`);
  const total = profile(cell).reduce((sum, part) => sum + part.cores, 0);
  const writes = cell.historyWrites;
  return [
    cell.server,
    String(cell.workers),
    int(cell.sessions),
    cell.contender === 'agentd' ? 'agentd' : 'I/O floor',
    num(total, 2),
    parts.join(', '),
    cell.cpuPressure === undefined ? 'not reported' : percent(cell.cpuPressure),
    writes === undefined ? 'in the server' : `${num(writes.slotWaitMs, 1)} / ${num(writes.updateMs, 1)}`,
  ];
}

/** What one step took of the workers' tasks, and how long a workflow task waited on the server for a worker. */
function taskRow(cell: CellResult): string[] {
  const tasks = cell.workerTasks;
  const each = (count: number) => num(count / cell.steps, 2);
  return [
    cell.server,
    String(cell.workers),
    int(cell.sessions),
    cell.contender === 'agentd' ? 'agentd' : 'I/O floor',
    each(tasks.workflowTasks),
    each(tasks.cacheMisses),
    each(tasks.activities),
    each(tasks.localActivities),
    num(tasks.scheduleToStartMs, 0),
  ];
}

/** What the cell's steps waited for besides a busy process: a free core, and on the cluster a shard's I/O slot. */
function waitsOf(cell: CellResult): string[] {
  const writes = cell.historyWrites;
  return [
    ...(cell.cpuPressure === undefined ? [] : [`a runnable thread waited for a core ${percent(cell.cpuPressure)} of the window`]),
    ...(writes === undefined
      ? []
      : [`each history write waited ${num(writes.slotWaitMs, 1)} ms for its shard's I/O slot, and a workflow update then took ${num(writes.updateMs, 1)} ms in PostgreSQL`]),
  ];
}

function kneeLine(knee: Knee): string {
  const who = `${knee.contender === 'agentd' ? 'agentd' : 'the I/O floor'} on the ${knee.server} with ${knee.workers} worker(s)`;
  if (knee.firstPast === undefined) return `- ${who}: no knee up to ${int(knee.lastBelow?.sessions ?? 0)} sessions (all ≥ ${KNEE_SHARE} of the ideal).`;
  const past = knee.firstPast;
  const [top, second] = profile(past);
  const total = profile(past).reduce((sum, part) => sum + part.cores, 0);
  const bound =
    total >= 0.85 * cpus().length
      ? `the machine's ${cpus().length} cores are spent (${num(total, 2)} busy), most by ${top?.process} (${num(top?.cores ?? 0, 2)} cores, then ${second?.process} ${num(second?.cores ?? 0, 2)})`
      : `${num(total, 2)} of ${cpus().length} cores busy on average, the busiest ${top?.process} (${num(top?.cores ?? 0, 2)} cores)`;
  const below = knee.lastBelow === undefined ? 'already at the smallest fleet' : `between ${int(knee.lastBelow.sessions)} and ${int(past.sessions)} sessions`;
  return `- ${who}: the knee is ${below} (${num(ofIdeal(past), 2)} of the ideal at ${int(past.sessions)}); ${[bound, ...waitsOf(past)].join('; ')}.`;
}

/** The series of one contender on one server with one worker count, smallest fleet first. */
function seriesOf(pairs: readonly Pair[]): Pair[][] {
  const bySeries = new Map<string, Pair[]>();
  for (const pair of pairs) bySeries.set(`${pair.server}|${pair.workers}`, [...(bySeries.get(`${pair.server}|${pair.workers}`) ?? []), pair]);
  return [...bySeries.values()].map((list) => [...list].sort((a, b) => a.sessions - b.sessions));
}

const seriesName = (pair: Pair) => `${pair.server}, ${pair.workers === 1 ? 'one worker' : `${pair.workers} workers`}`;

/** Each series' worker RSS per more running agentd session. */
function rssLines(cells: readonly CellResult[], pairs: readonly Pair[]): string[] {
  return seriesOf(pairs).flatMap((series) => {
    const first = series[0]!;
    const perSession = marginalRssPerSession(cells, { server: first.server, workers: first.workers, contender: 'agentd' });
    return perSession === undefined ? [] : [`${seriesName(first)} ${mb(perSession)}`];
  });
}

/** What happens to each agentd series between its two largest fleets, beside the floor. */
function pastKneeLines(pairs: readonly Pair[]): string[] {
  return seriesOf(pairs).flatMap((series) => {
    const [smaller, larger] = series.slice(-2);
    if (smaller === undefined || larger === undefined) return [];
    const server = (cell: CellResult) => num(perStep(cell.cpuMs.server + cell.cpuMs.database, cell), 1);
    return [
      `- ${seriesName(larger)}, ${int(smaller.sessions)} → ${int(larger.sessions)} sessions: agentd ${num(smaller.agentd.stepsPerSecond, 1)} → ${num(larger.agentd.stepsPerSecond, 1)} steps/s, ` +
        `server and database CPU ${server(smaller.agentd)} → ${server(larger.agentd)} ms/step; the I/O floor ${num(smaller.ioFloor.stepsPerSecond, 1)} → ${num(larger.ioFloor.stepsPerSecond, 1)} steps/s, ` +
        `${server(smaller.ioFloor)} → ${server(larger.ioFloor)} ms/step.`,
    ];
  });
}

export function scaleReport(cells: readonly CellResult[], options: ScaleOptions): string[] {
  const pairs = pairsOf(cells);
  const knees = kneesOf(cells);
  const reference = pairs.find((pair) => pair.server === 'cluster' && pair.workers === 1) ?? pairs[0];
  const prediction = reference === undefined ? undefined : predictHost(PREDICTED_CORES, reference.agentd, LATENCY_MS);
  const referenceRss = reference === undefined ? undefined : marginalRssPerSession(cells, { server: reference.server, workers: 1, contender: 'agentd' });
  const ratios = pairs.map(workerCpuRatio);
  return [
    `Every session steps without end against a model that answers after ${int(LATENCY_MS)} ms; agentd's tool calls are the simulator's`,
    'file cycle (list, write, read; `commands=off`, so no sandboxed process runs) with 200-byte outputs. Workers are processes of',
    'their own (`node dist/src/worker.js`, and `node dist/bench/floor/floorWorker.js` for the I/O floor, whose workflow makes the',
    "same two activities per step: one chat completion through the real `openai` client to a fixed-reply endpoint with the same latency,",
    "and one store write each). Each worker's workflow cache holds every session of its cell (`AGENTD_WORKFLOW_CACHE_SIZE`), and both run",
    "agentd's ENGINE_TUNING worker settings, so up to 1,000 activities at once. The dev server is the Temporal CLI's (SQLite, the SQLite",
    'transcript store); the cluster is scripts/temporal-cluster.sh (Temporal server 1.32.2 on PostgreSQL, the PostgreSQL transcript store), started on empty databases unless it was running already.',
    '',
    `A cell starts its sessions, waits until each has been answered three times (so its first tool call, which claims a workspace, is behind it), and counts for ${options.windowSeconds} s:`,
    'steps are the model answers (counted at the endpoint); CPU is user + system time from /proc/<pid>/stat of the worker',
    "processes, the Temporal server and (cluster) every PostgreSQL process; a step's time beyond the model is the time between two",
    `answers to the same session minus ${int(LATENCY_MS)} ms. The ideal is sessions ÷ latency. This machine has ${cpus().length} cores shared by all of it,`,
    'the model endpoint and the client included.',
    '',
    ...table(
      [
        'server',
        'workers',
        'sessions',
        'agentd steps/s (÷ ideal)',
        'I/O floor steps/s (÷ ideal)',
        'worker CPU ms/step: agentd / floor',
        'server CPU ms/step: agentd / floor',
        'PostgreSQL CPU ms/step',
        'agentd worker RSS, before → with the sessions',
        'agentd beyond model p50 / p99 ms',
        'floor beyond model p50 / p99 ms',
      ],
      pairs.map(pairRow),
    ),
    '',
    `agentd's worker CPU per step is ${num(Math.min(...ratios), 2)}× to ${num(Math.max(...ratios), 2)}× the I/O floor's in the same cell` +
      ` (limit ${WORKER_CPU_LIMIT}×: ${ratios.every((value) => value <= WORKER_CPU_LIMIT) ? 'met in every cell' : `**exceeded in ${ratios.filter((value) => value > WORKER_CPU_LIMIT).length} cell(s)**`}).`,
    '',
    `Worker RSS per more running agentd session, between the two largest fleets: ${rssLines(cells, pairs).join('; ')}.`,
    '',
    '### The knee',
    '',
    ...knees.map(kneeLine),
    '',
    'Past the knee, between the two largest fleets of each series:',
    '',
    ...pastKneeLines(pairs),
    '',
    'Where the CPU went in each cell (cores kept busy over the window, busiest first), how long a runnable thread waited for a core',
    "(/proc/pressure/cpu), and on the cluster what its history writes waited for (the server's own metrics: the shard's I/O slot,",
    'then the workflow update in PostgreSQL, mean ms):',
    '',
    ...table(
      ['server', 'workers', 'sessions', 'contender', 'cores busy', 'by process', 'waiting for a core', 'history write: slot wait / update ms'],
      cells.map(profileRow),
    ),
    '',
    "What a step took of the workers' tasks, from the workers' own metrics (the Temporal SDK's): workflow tasks, of them",
    "those whose session was not in the worker's cache (each replays its run's history), activities, local activities; and how",
    'long a workflow task waited on the server before a worker took it (mean ms):',
    '',
    ...table(
      ['server', 'workers', 'sessions', 'contender', 'workflow tasks', 'out of cache', 'activities', 'local activities', 'workflow task waited ms'],
      cells.map(taskRow),
    ),
    '',
    ...(prediction === undefined || reference === undefined
      ? []
      : [
          `### A ${PREDICTED_CORES}-core worker host`,
          '',
          `From the ${reference.server} with one worker at ${int(reference.sessions)} sessions: ${num(perStep(reference.agentd.cpuMs.workers, reference.agentd), 2)} ms of worker CPU`,
          `per step. With a quarter of its CPU kept spare, a ${PREDICTED_CORES}-core host's workers carry about **${int(prediction.stepsPerSecond)} steps/s**,`,
          `which is **${int(prediction.sessions)} sessions** stepping at a ${num(LATENCY_MS / 1000, 0)} s model (plus the ${num(reference.agentd.beyondModelMs.p50, 0)} ms each step spends`,
          `beyond it). Those steps need about **${num(prediction.serverCores, 1)} cores** of Temporal server and database at`,
          `${num(perStep(reference.agentd.cpuMs.server + reference.agentd.cpuMs.database, reference.agentd), 2)} ms per step.`,
          ...(referenceRss === undefined
            ? []
            : [`At ${mb(referenceRss)} of worker RSS per running session, those sessions hold about ${num((prediction.sessions * referenceRss) / 2 ** 30, 1)} GB of worker memory.`]),
          'One Node process runs its workflow code on one thread: a host uses its cores with several worker processes, one per core or two.',
        ]),
  ];
}
