/**
 * How one step's tool calls run. Consecutive calls whose tool only reads (`effect: 'read'`) form a
 * batch and run side by side, as do consecutive `delegate` calls; every other call (a `write`, or a
 * tool the session does not have) is a barrier that runs alone, after every earlier call has
 * finished and before any later one starts. So a read never overlaps a write, writes keep their order, and what each call could see
 * of the workspace is what it would have seen one at a time. Results enter the transcript in call
 * order whatever order they finish in, and seqs are handed out in call order before anything runs.
 */
import { patched } from '@temporalio/workflow';
import type { CallModelResult, RunToolResult } from '../activities/types';
import type { MaybePending } from './maybePending';

/** Marks histories whose read calls ran side by side; older ones ran every call one at a time. */
export const PARALLEL_READS_PATCH = 'parallel-read-tool-calls';

export type ToolCall = CallModelResult['toolCalls'][number];

/** What runs the calls and keeps their results (`SessionRun`). */
export interface ToolCallRunner {
  runTool(call: ToolCall, callSeq: number): Promise<RunToolResult>;
  recordToolResult(result: RunToolResult): MaybePending;
}

/** The calls, in order, cut into batches: a run of consecutive reads, or one other call. */
export function batchesOf(calls: readonly ToolCall[]): ToolCall[][] {
  const batches: ToolCall[][] = [];
  for (const call of calls) {
    const last = batches[batches.length - 1];
    const joins = sideBySide(call) && last !== undefined && last.every((earlier) => earlier.effect === call.effect);
    if (joins) last.push(call);
    else batches.push([call]);
  }
  return batches;
}

/** Reads, and `delegate` calls, whose children work in workspaces of their own. */
function sideBySide(call: ToolCall): boolean {
  return call.effect === 'read' || call.effect === 'delegate';
}

/** Runs every call of a reply stored under `callSeq` and records each result, in call order. */
export async function runToolCalls(runner: ToolCallRunner, calls: readonly ToolCall[], callSeq: number): Promise<void> {
  for (const batch of batchesOf(calls)) {
    // Asked only for a batch that would run side by side: histories of one-call steps carry no marker.
    if (batch.length > 1 && patched(PARALLEL_READS_PATCH)) await runSideBySide(runner, batch, callSeq);
    else {
      for (const call of batch) {
        const recording = runner.recordToolResult(await runner.runTool(call, callSeq));
        if (recording) await recording;
      }
    }
  }
}

async function runSideBySide(runner: ToolCallRunner, batch: readonly ToolCall[], callSeq: number): Promise<void> {
  // Every call is started (and given its seq) before any is awaited.
  const started = batch.map((call) => runner.runTool(call, callSeq));
  // All are let finish, so a failure is the first one in call order, not whichever came back first.
  const settled = await Promise.allSettled(started);
  for (const outcome of settled) {
    if (outcome.status === 'rejected') throw outcome.reason;
    const recording = runner.recordToolResult(outcome.value);
    if (recording) await recording;
  }
}
