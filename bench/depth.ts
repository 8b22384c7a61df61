/**
 * Flat at depth: one 2,000-step session on the zero-latency simulator, with tool output enough to
 * compact many times and history enough to continue as new several times. Its histories (every run,
 * walked back from the last through each run's predecessor) are cut into steps at each callModel
 * activity; the last 100 steps are set against the first 100 of the same session:
 * - step latency: one callModel scheduled to the next (compaction and continue-as-new included);
 * - history bytes per step: the encoded events of the step, and each run's bytes over its steps;
 * - decision time: the workflow's own time in the step (WorkflowTaskStarted → Completed, summed),
 *   which is where the compaction decision and all other workflow code run.
 */
import { temporal } from '@temporalio/proto';
import { loadavg } from 'node:os';
import type { Stack } from '../harness/stack';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';

const STEPS = 2_000;
const WINDOW = 64_000;
const TASK = `go deep [sim steps=${STEPS} output=8000-8000]`;
const EDGE = 100;
const CONTROL_STEPS = EDGE + 20;
const CONTROL_TASK = `stay shallow [sim steps=${CONTROL_STEPS} output=8000-8000]`;
const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

interface Step {
  run: number;
  /** Encoded size of the callModel ActivityTaskScheduled event: its input carries the context's seq runs. */
  modelCallEventBytes: number;
  /** callModel scheduled (server time, ms). */
  startedAt: number;
  bytes: number;
  workflowTaskMs: number;
}

interface Run {
  runId: string;
  /** Encoded size of the run's WorkflowExecutionStarted event: the input and the carried state. */
  startEventBytes: number;
  events: number;
  bytes: number;
  steps: number;
}

export async function depthBench(stack: Stack): Promise<BenchBody> {
  const started = performance.now();
  const { result, runs, steps } = await stack.withWorker({ contextWindow: WINDOW }, async () => {
    const handle = await stack.sessions.start({ task: TASK, model: 'agentd-sim', contextWindow: WINDOW, maxSteps: STEPS + 10 });
    const progress = setInterval(() => {
      void stack.sessions.state(handle.workflowId).then(
        (state) => say(`step ${int(state.step)} of ${int(STEPS + 1)}, run ${state.runs}, ${num((performance.now() - started) / 1000, 0)} s`),
        () => undefined,
      );
    }, 30_000);
    try {
      const finished = await stack.sessions.result(handle.workflowId);
      return { result: finished, ...(await stepsOf(stack, handle.workflowId)) };
    } finally {
      clearInterval(progress);
    }
  });
  const state = await stack.sessions.state(result.sessionId);
  // The machine is shared: a fresh session right after the long one shows what a shallow step costs
  // under the load of the end of the run, so depth and load can be told apart.
  const control = await stack.withWorker({ contextWindow: WINDOW }, async () => {
    const handle = await stack.sessions.start({ task: CONTROL_TASK, model: 'agentd-sim', contextWindow: WINDOW, maxSteps: CONTROL_STEPS + 10 });
    await stack.sessions.result(handle.workflowId);
    return stepsOf(stack, handle.workflowId);
  });
  say(`${result.outcome} after ${int(result.steps)} steps in ${runs.length} runs; ${state.compaction.byStrategy.summary} summaries, ${state.compaction.byStrategy.prune} prunes`);

  // The session's last step is its `finish`; every step before it has a successor to time it by.
  const timed = steps.slice(0, -1).map((step, index) => ({ ...step, latencyMs: steps[index + 1]!.startedAt - step.startedAt }));
  const first = timed.slice(0, EDGE);
  const last = timed.slice(-EDGE);
  const figures = (part: typeof timed) => ({
    p50LatencyMs: percentile(part.map((step) => step.latencyMs), 0.5),
    p90LatencyMs: percentile(part.map((step) => step.latencyMs), 0.9),
    meanBytesPerStep: mean(part.map((step) => step.bytes)),
    p50WorkflowTaskMs: percentile(part.map((step) => step.workflowTaskMs), 0.5),
    p90WorkflowTaskMs: percentile(part.map((step) => step.workflowTaskMs), 0.9),
    meanModelCallEventBytes: mean(part.map((step) => step.modelCallEventBytes)),
  });
  const head = figures(first);
  const tail = figures(last);
  const controlTimed = control.steps.slice(0, -1).map((step, index) => ({ ...step, latencyMs: control.steps[index + 1]!.startedAt - step.startedAt }));
  const fresh = figures(controlTimed.slice(0, EDGE));
  const modelCallBytes = (part: typeof timed) => mean(part.map((step) => step.modelCallEventBytes));
  say(`fresh session right after, first ${EDGE} steps: p50 ${num(fresh.p50LatencyMs, 0)} ms, workflow time p50 ${num(fresh.p50WorkflowTaskMs, 1)} ms`);
  const latencyRatio = tail.p50LatencyMs / head.p50LatencyMs;
  const bytesRatio = tail.meanBytesPerStep / head.meanBytesPerStep;
  say(`p50 step latency: first ${EDGE} ${num(head.p50LatencyMs, 0)} ms, last ${EDGE} ${num(tail.p50LatencyMs, 0)} ms (${ratio(tail.p50LatencyMs, head.p50LatencyMs)})`);
  say(`history bytes per step: first ${EDGE} ${int(head.meanBytesPerStep)} B, last ${EDGE} ${int(tail.meanBytesPerStep)} B (${ratio(tail.meanBytesPerStep, head.meanBytesPerStep)})`);
  say(`workflow time per step (p50): first ${EDGE} ${num(head.p50WorkflowTaskMs, 1)} ms, last ${EDGE} ${num(tail.p50WorkflowTaskMs, 1)} ms`);
  const row = (name: string, part: ReturnType<typeof figures>) => [
    name,
    `**${num(part.p50LatencyMs, 0)} ms**`,
    `${num(part.p90LatencyMs, 0)} ms`,
    `**${int(part.meanBytesPerStep)} B**`,
    `${num(part.p50WorkflowTaskMs, 1)} ms`,
    `${num(part.p90WorkflowTaskMs, 1)} ms`,
  ];
  return {
    figures: {
      task: TASK,
      contextWindow: WINDOW,
      outcome: result.outcome,
      steps: result.steps,
      compactions: state.compaction.byStrategy,
      runs,
      first100: head,
      last100: tail,
      freshSessionAfter: { task: CONTROL_TASK, first100: fresh },
      lastOverFreshP50Latency: tail.p50LatencyMs / fresh.p50LatencyMs,
      loadAverageAtEnd: loadavg(),
      lastOverFirstP50Latency: latencyRatio,
      lastOverFirstBytesPerStep: bytesRatio,
      lastOverFirstP50WorkflowTask: tail.p50WorkflowTaskMs / head.p50WorkflowTaskMs,
      latencyTargetMet: Math.abs(latencyRatio - 1) <= 0.1,
    },
    markdown: [
      `Task \`${TASK}\`, declared and simulated window ${int(WINDOW)} tokens, zero model latency, maxSteps ${int(STEPS + 10)}, continue-as-new at the default budget. ` +
        `${result.outcome} after ${int(result.steps)} steps in ${runs.length} runs, ${state.compaction.byStrategy.summary} summaries and ${state.compaction.byStrategy.prune} prunes.`,
      `Steps are cut at each callModel ActivityTaskScheduled event of all the runs' histories; a step's latency is the time to the next step's, its bytes the encoded size of its events, ` +
        'its workflow time the sum of its workflow tasks (WorkflowTaskStarted → Completed), where the compaction decision runs.',
      '',
      ...table(
        ['steps', 'p50 step latency', 'p90', 'history bytes / step', 'workflow time / step p50', 'p90'],
        [row(`first ${EDGE}`, head), row(`last ${EDGE}`, tail), row(`fresh session after it, first ${EDGE}`, fresh)],
      ),
      '',
      `Last ${EDGE} ÷ first ${EDGE}: p50 step latency **${ratio(tail.p50LatencyMs, head.p50LatencyMs)}** (target within 10%: ${Math.abs(latencyRatio - 1) <= 0.1 ? 'met' : 'missed'}), ` +
        `history bytes per step **${ratio(tail.meanBytesPerStep, head.meanBytesPerStep)}**, workflow time per step ${ratio(tail.p50WorkflowTaskMs, head.p50WorkflowTaskMs)}. ` +
        `Against a fresh session run right after (same load as the end of the long one): p50 step latency ${ratio(tail.p50LatencyMs, fresh.p50LatencyMs)}, workflow time ${ratio(tail.p50WorkflowTaskMs, fresh.p50WorkflowTaskMs)}. ` +
        `The callModel event (whose input lists the context's seq runs) is ${int(modelCallBytes(first))} B in the first ${EDGE} steps and ${int(modelCallBytes(last))} B in the last.`,
      '',
      ...table(
        ['run', 'steps', 'events', 'history', 'bytes / step', 'start event (input + carry)', 'p50 step latency'],
        runs.map((run, index) => {
          const ofRun = timed.filter((step) => step.run === index).map((step) => step.latencyMs);
          return [String(index + 1), int(run.steps), int(run.events), `${num(run.bytes / 1024, 0)} KB`, int(run.bytes / Math.max(run.steps, 1)), `${int(run.startEventBytes)} B`, `${num(percentile(ofRun, 0.5), 0)} ms`];
        }),
      ),
    ],
  };
}

/** Every run of the session, first to last: walked back from the latest through each run's predecessor. */
async function historiesOf(stack: Stack, workflowId: string): Promise<Array<{ runId: string; history: temporal.api.history.v1.IHistory }>> {
  const runs: Array<{ runId: string; history: temporal.api.history.v1.IHistory }> = [];
  let runId: string | undefined = (await stack.client.workflow.getHandle(workflowId).describe()).runId;
  while (runId) {
    const history = await stack.client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.unshift({ runId, history });
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

/** Cuts every run's history into steps, each starting at its callModel activity. */
async function stepsOf(stack: Stack, workflowId: string): Promise<{ runs: Run[]; steps: Step[] }> {
  const runs: Run[] = [];
  const steps: Step[] = [];
  for (const { runId, history } of await historiesOf(stack, workflowId)) {
    const events = history.events ?? [];
    const before = steps.length;
    let taskStartedAt: number | undefined;
    for (const event of events) {
      const at = timeOf(event);
      const bytes = temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
      if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel') {
        steps.push({ run: runs.length, startedAt: at, bytes: 0, workflowTaskMs: 0, modelCallEventBytes: bytes });
      }
      // Events before a run's first step (its start) count to the step that was running.
      const current = steps[steps.length - 1];
      if (current) current.bytes += bytes;
      if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) taskStartedAt = at;
      if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && taskStartedAt !== undefined) {
        if (current) current.workflowTaskMs += at - taskStartedAt;
        taskStartedAt = undefined;
      }
    }
    const startEvent = events[0];
    const startEventBytes = startEvent ? temporal.api.history.v1.HistoryEvent.encode(startEvent).finish().length : 0;
    runs.push({ runId, startEventBytes, events: events.length, bytes: temporal.api.history.v1.History.encode(history).finish().length, steps: steps.length - before });
  }
  return { runs, steps };
}

function timeOf(event: HistoryEvent): number {
  return Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
}
