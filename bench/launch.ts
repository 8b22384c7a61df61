/**
 * Worker launch to polling: a worker child process (`node dist/src/worker.js`) started against the
 * bench's dev server with the bundle `npm run build` wrote, against the same worker bundling the
 * workflow code at start (its bundle path pointed at a file that does not exist, as if moved aside).
 * "Polling" is what the server saw: the first workflow task of a session started before the spawn
 * is picked up by the new worker (its WorkflowTaskStarted event time); the time to the end of that
 * one-step session and to the worker's start-up log line are reported too.
 */
import { temporal } from '@temporalio/proto';
import { join } from 'node:path';
import { startSimulator } from '../src/simulator/server';
import { BUNDLE_PATH_ENV, DEFAULT_BUNDLE_PATH } from '../src/workflowBundle/prebuiltBundle';
import type { Stack } from '../harness/stack';
import { startWorkerProcess } from '../harness/workerProcess';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';

/** Launches of each kind, alternated so a slow minute on the machine hits both alike. */
const ROUNDS = 3;
const TARGET_MS = 2_000;
const WORKFLOW_TASK_STARTED = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED;

interface Launch {
  /** Spawn to the worker's "agentd worker on …" line: connected, worker created, about to poll. */
  readyLineMs: number;
  /** Spawn to the server handing the waiting session's first workflow task to the worker. */
  pollingMs: number;
  /** Spawn to the end of the one-step session (a model call and a `finish` call). */
  sessionMs: number;
  warned: boolean;
}

export async function launchBench(stack: Stack): Promise<BenchBody> {
  const simulator = await startSimulator();
  const missing = join(stack.dir, 'moved-aside', 'workflow-bundle.js');
  const prebuilt: Launch[] = [];
  const bundling: Launch[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const [kind, bundlePath, into] of [
        ['prebuilt', DEFAULT_BUNDLE_PATH, prebuilt],
        ['bundling at start', missing, bundling],
      ] as const) {
        const launch = await launchOnce(stack, simulator.baseURL, bundlePath, `launch ${kind} ${round}`);
        into.push(launch);
        say(`${kind}, round ${round}: polling after ${int(launch.pollingMs)} ms (log line ${int(launch.readyLineMs)} ms, session done ${int(launch.sessionMs)} ms)${launch.warned ? ', warned' : ''}`);
      }
    }
  } finally {
    await simulator.stop();
  }
  const fast = medianOf(prebuilt);
  const slow = medianOf(bundling);
  say(`median launch to polling: prebuilt ${int(fast.pollingMs)} ms, bundling at start ${int(slow.pollingMs)} ms (${ratio(slow.pollingMs, fast.pollingMs)} slower)`);
  const row = (name: string, figures: Launch, all: Launch[]) => [
    name,
    `**${int(figures.pollingMs)} ms**`,
    `${int(figures.readyLineMs)} ms`,
    `${int(figures.sessionMs)} ms`,
    all.map((launch) => int(launch.pollingMs)).join(', '),
    all.every((launch) => launch.warned) ? 'yes' : all.some((launch) => launch.warned) ? 'some' : 'no',
  ];
  return {
    figures: {
      rounds: ROUNDS,
      targetMs: TARGET_MS,
      prebuilt: { median: fast, launches: prebuilt },
      bundlingAtStart: { median: slow, launches: bundling },
      bundlingOverPrebuiltPolling: slow.pollingMs / fast.pollingMs,
    },
    markdown: [
      `A worker child process (\`node dist/src/worker.js\`, its own simulator endpoint passed in) is spawned while a one-step session waits on the task queue; ${ROUNDS} launches of each kind, alternated. ` +
        `"Polling" is the server's WorkflowTaskStarted time of that session's first task minus the spawn time (same clock). Bundling at start is forced by pointing ${BUNDLE_PATH_ENV} at a missing file.`,
      '',
      ...table(
        ['worker', 'launch → polling (median)', '→ start-up log line', '→ session done', 'each launch → polling', 'bundling warning'],
        [row('prebuilt bundle', fast, prebuilt), row('bundling at start', slow, bundling)],
      ),
      '',
      `Prebuilt: **${num(fast.pollingMs / 1000, 2)} s** to polling (target ≤ ${num(TARGET_MS / 1000, 0)} s: ${fast.pollingMs <= TARGET_MS ? 'met' : 'missed'}); ` +
        `bundling at start: ${num(slow.pollingMs / 1000, 2)} s, ${ratio(slow.pollingMs, fast.pollingMs)} the prebuilt figure.`,
    ],
  };
}

async function launchOnce(stack: Stack, modelBaseURL: string, bundlePath: string, task: string): Promise<Launch> {
  const handle = await stack.sessions.start({ task: `${task} [sim steps=0]`, model: 'agentd-sim' });
  let readyLineAt: number | undefined;
  const spawnedAt = Date.now();
  const worker = startWorkerProcess({
    temporalAddress: stack.temporal.address,
    storeFile: stack.storeFile,
    workspaceRoot: stack.workspaceRoot,
    modelBaseURL,
    extra: { [BUNDLE_PATH_ENV]: bundlePath },
    onStderr: (line) => {
      if (readyLineAt === undefined && line.startsWith('agentd worker on ')) readyLineAt = Date.now();
    },
  });
  let sessionDoneAt: number;
  try {
    await stack.sessions.result(handle.workflowId);
    sessionDoneAt = Date.now();
  } finally {
    await worker.stop();
  }
  const { stderr } = await worker.done;
  const history = await stack.client.workflow.getHandle(handle.workflowId).fetchHistory();
  const started = history.events?.find((event) => event.eventType === WORKFLOW_TASK_STARTED);
  if (!started?.eventTime) throw new Error(`${task}: no WorkflowTaskStarted event in the history`);
  const pollingAt = Number(started.eventTime.seconds ?? 0) * 1000 + (started.eventTime.nanos ?? 0) / 1e6;
  if (readyLineAt === undefined) throw new Error(`${task}: the worker never logged its start-up line:\n${stderr}`);
  return {
    readyLineMs: readyLineAt - spawnedAt,
    pollingMs: pollingAt - spawnedAt,
    sessionMs: sessionDoneAt - spawnedAt,
    warned: /bundling the workflow code at start/.test(stderr),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function medianOf(launches: Launch[]): Launch {
  return {
    readyLineMs: median(launches.map((launch) => launch.readyLineMs)),
    pollingMs: median(launches.map((launch) => launch.pollingMs)),
    sessionMs: median(launches.map((launch) => launch.sessionMs)),
    warned: launches.every((launch) => launch.warned),
  };
}
