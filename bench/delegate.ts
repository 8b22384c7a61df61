/**
 * Delegation: one multi-part job done by one session, and by a parent that hands each part to a
 * child. Same parts, same steps of work per part, same simulator latency, in the same process: the
 * parent's peak context, the prompt tokens billed by everyone, cost and wall time, as ratios.
 */
import type { SessionResult } from '../src/session/state';
import type { Stack } from '../harness/stack';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';

const PARTS = ['parsers', 'storage', 'network'] as const;
const STEPS_PER_PART = 10;
const OUTPUT = 'output=3000-6000';
const LATENCY_MS = 200;

interface JobRun {
  wallMs: number;
  /** Largest prompt of the top session's own requests. */
  peakPrompt: number;
  /** Prompt tokens billed by every session of the job, children and summaries included. */
  promptTokens: number;
  cachedTokens: number;
  costUsd: number;
  modelCalls: number;
}

function partTask(part: string, steps: number): string {
  return `Survey the ${part} module and write notes [sim steps=${steps} ${OUTPUT}]`;
}

function singleTask(): string {
  return `Survey the ${PARTS.join(', ')} modules and write notes [sim steps=${PARTS.length * STEPS_PER_PART} ${OUTPUT}]`;
}

function delegatingTask(): string {
  const calls = PARTS.map((part, index) => `[sim ${index === 0 ? 'call' : 'also'} delegate ${JSON.stringify({ task: partTask(part, STEPS_PER_PART) })}]`);
  return [`[sim steps=1] Survey the ${PARTS.join(', ')} modules, one helper each`, ...calls].join('\n');
}

async function runJob(stack: Stack, task: string): Promise<JobRun> {
  const started = Date.now();
  const handle = await stack.sessions.start({ task, model: 'agentd-sim' });
  const result: SessionResult = await stack.sessions.result(handle.workflowId);
  const wallMs = Date.now() - started;
  if (result.outcome !== 'finished') throw new Error(`${handle.workflowId} ended ${result.outcome}`);
  const replies = (await stack.store.list(handle.workflowId)).filter((row) => row.message.role === 'assistant');
  const peakPrompt = Math.max(...replies.map((row) => (row.meta.usage as { promptTokens?: number } | undefined)?.promptTokens ?? 0));
  const spend = result.spend!;
  const parts = [spend.agent, spend.summary, ...(spend.delegates ? [spend.delegates] : [])];
  return {
    wallMs,
    peakPrompt,
    promptTokens: parts.reduce((sum, part) => sum + part.promptTokens, 0),
    cachedTokens: parts.reduce((sum, part) => sum + part.cachedTokens, 0),
    costUsd: spend.costUsd,
    modelCalls: parts.reduce((sum, part) => sum + part.calls, 0),
  };
}

export async function delegateBench(stack: Stack): Promise<BenchBody> {
  const [single, delegated] = await stack.withWorker({ latencyMs: LATENCY_MS }, async () => {
    const one = await runJob(stack, singleTask());
    say(`one session: ${int(one.wallMs)} ms, peak prompt ${int(one.peakPrompt)}, ${int(one.promptTokens)} prompt tokens`);
    const tree = await runJob(stack, delegatingTask());
    say(`parent + ${PARTS.length} children: ${int(tree.wallMs)} ms, parent peak prompt ${int(tree.peakPrompt)}, ${int(tree.promptTokens)} prompt tokens`);
    return [one, tree];
  });
  const row = (name: string, run: JobRun): string[] => [
    name,
    int(run.peakPrompt),
    int(run.promptTokens),
    `${int(run.cachedTokens)} (${num((100 * run.cachedTokens) / Math.max(run.promptTokens, 1), 0)}%)`,
    int(run.modelCalls),
    `$${num(run.costUsd, 4)}`,
    `${num(run.wallMs / 1000, 1)} s`,
  ];
  return {
    figures: { parts: PARTS.length, stepsPerPart: STEPS_PER_PART, latencyMs: LATENCY_MS, single, delegated },
    markdown: [
      `One job of ${PARTS.length} parts, ${STEPS_PER_PART} tool steps each (simulator outputs ${OUTPUT.slice('output='.length)} chars, ${LATENCY_MS} ms per model call), ` +
        `done by one session (${PARTS.length * STEPS_PER_PART} steps) and by a parent whose first step delegates each part to a child. ` +
        'Prompt tokens, calls and cost count every session of the job (the children roll up into the parent); peak prompt is the top session\'s largest request.',
      '',
      ...table(['job done by', 'peak prompt (top session)', 'prompt tokens, all', 'of them cached', 'model calls', 'cost', 'wall time'], [row('one session', single), row('a parent and 3 children', delegated)]),
      '',
      `Delegated against one session: the parent's peak context is ${ratio(delegated.peakPrompt, single.peakPrompt)} of the single session's, ` +
        `prompt tokens billed ${ratio(delegated.promptTokens, single.promptTokens)}, cost ${ratio(delegated.costUsd, single.costUsd)}, wall time ${ratio(delegated.wallMs, single.wallMs)}.`,
    ],
  };
}
