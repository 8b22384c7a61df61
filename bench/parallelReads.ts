/**
 * Parallel reads: steps of three 300 ms tool calls, declared `read` (they run side by side) against
 * the very same tool declared `write` (one at a time, as every call ran before), on the same worker
 * and dev server. Tool time of a step is read from its history: the first of its runTool
 * activities scheduled to the last one completed, so dispatch and recording are inside the figure.
 */
import { temporal } from '@temporalio/proto';
import { createModelClient } from '../src/model/client';
import { startSimulator } from '../src/simulator/server';
import { builtinTools, ToolRegistry } from '../src/tools/registry';
import { ToolEffect } from '../src/tools/tool';
import { sleepTool } from '../harness/sleepTool';
import type { Stack } from '../harness/stack';
import { int, ratio, say, table, type BenchBody } from './lib/result';

const CALL_MS = 300;
const CALLS_PER_STEP = 3;
const STEPS = 5;
const TARGET_MS = 400;
const EventType = temporal.api.enums.v1.EventType;

/** A task whose first STEPS steps each call `tool` three times in one reply. */
function taskFor(tool: string): string {
  const lines = [`three ${tool} calls per step`];
  for (let step = 1; step <= STEPS; step += 1) {
    for (let call = 1; call <= CALLS_PER_STEP; call += 1) {
      lines.push(`[sim ${call === 1 ? 'call' : 'also'} ${tool} {"label":"s${step}c${call}","ms":${CALL_MS}}]`);
    }
  }
  return lines.join('\n');
}

export async function parallelReadsBench(stack: Stack): Promise<BenchBody> {
  const simulator = await startSimulator();
  const tools = new ToolRegistry([...builtinTools, sleepTool('sleep_read', ToolEffect.read), sleepTool('sleep_write', ToolEffect.write)]);
  let read: number[] = [];
  let write: number[] = [];
  try {
    await stack.runWorker({ model: createModelClient({ baseURL: simulator.baseURL }), tools }, async () => {
      // Alternated twice, so neither kind gets the quieter minute.
      for (const round of [1, 2]) {
        read = [...read, ...(await stepToolTimes(stack, 'sleep_read'))];
        write = [...write, ...(await stepToolTimes(stack, 'sleep_write'))];
        say(`round ${round}: read steps ${read.map(int).join(', ')} ms; write steps ${write.map(int).join(', ')} ms`);
      }
    });
  } finally {
    await simulator.stop();
  }
  const parallel = median(read);
  const sequential = median(write);
  say(`median tool time of a step: ${int(parallel)} ms with reads side by side, ${int(sequential)} ms one at a time (${ratio(sequential, parallel)}); ${int(CALLS_PER_STEP * CALL_MS)} ms of sleeping`);
  return {
    figures: { callMs: CALL_MS, callsPerStep: CALLS_PER_STEP, stepsPerKind: read.length, targetMs: TARGET_MS, readStepToolMs: read, writeStepToolMs: write, medianReadMs: parallel, medianWriteMs: sequential, sequentialOverParallel: sequential / parallel },
    markdown: [
      `${read.length} steps of each kind, each step one reply with ${CALLS_PER_STEP} calls of a tool that sleeps ${CALL_MS} ms; the same tool declared \`read\` and declared \`write\`, on one in-process worker. ` +
        'Tool time of a step: from its first runTool ActivityTaskScheduled to its last ActivityTaskCompleted (server event times).',
      '',
      ...table(
        ['calls declared', 'median tool time / step', 'each step', 'how they ran'],
        [
          ['read', `**${int(parallel)} ms**`, read.map(int).join(', '), 'side by side'],
          ['write (the sequential baseline)', `${int(sequential)} ms`, write.map(int).join(', '), 'one at a time'],
        ],
      ),
      '',
      `Reads side by side: **${int(parallel)} ms** of tool time for ${CALLS_PER_STEP} × ${CALL_MS} ms calls (target ≤ ${TARGET_MS} ms: ${parallel <= TARGET_MS ? 'met' : 'missed'}), ` +
        `against ${int(sequential)} ms one at a time (${int(CALLS_PER_STEP * CALL_MS)} ms of sleeping alone): ${ratio(sequential, parallel)} faster.`,
    ],
  };
}

/** Runs one session of STEPS three-call steps of `tool`; the tool time of each of those steps. */
async function stepToolTimes(stack: Stack, tool: string): Promise<number[]> {
  const handle = await stack.sessions.start({ task: taskFor(tool), model: 'agentd-sim' });
  await stack.sessions.result(handle.workflowId);
  const history = await stack.client.workflow.getHandle(handle.workflowId).fetchHistory();
  const scheduledAt = new Map<number, number>();
  const spans: Array<{ scheduled: number; completed: number }> = [];
  for (const event of history.events ?? []) {
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool') {
      scheduledAt.set(Number(event.eventId), at);
    }
    const from = Number(event.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1);
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED && scheduledAt.has(from)) spans.push({ scheduled: scheduledAt.get(from)!, completed: at });
  }
  // The first STEPS × 3 runTool activities are the scripted steps, in order; the last is `finish`.
  const times: number[] = [];
  for (let step = 0; step < STEPS; step += 1) {
    const calls = spans.slice(step * CALLS_PER_STEP, (step + 1) * CALLS_PER_STEP);
    if (calls.length !== CALLS_PER_STEP) throw new Error(`${tool}: step ${step + 1} has ${calls.length} tool activities`);
    times.push(Math.max(...calls.map((call) => call.completed)) - Math.min(...calls.map((call) => call.scheduled)));
  }
  return times;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
