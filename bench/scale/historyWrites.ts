/**
 * What a Temporal server's own Prometheus endpoint says of its history writes: how long each waited
 * for its shard's I/O slot (a shard takes one write at a time unless `history.shardIOConcurrency`
 * says otherwise) and how long a workflow's update then took in the database. On a cluster these
 * waits, not any one busy process, are what a step beyond the model is made of below the knee.
 */
import { fetchExposition, samplesOf, sumOf } from '../../harness/prometheus';

/** Running totals since the server started; a window's figures are the difference of two. */
export interface HistoryWriteTotals {
  readonly slotWaits: number;
  readonly slotWaitSeconds: number;
  readonly updates: number;
  readonly updateSeconds: number;
}

export interface HistoryWrites {
  /** Writes that took a shard's I/O slot in the window. */
  readonly writes: number;
  /** Mean wait for the slot, ms. */
  readonly slotWaitMs: number;
  /** Mean time of a workflow update in the database (`UpdateWorkflowExecution`), ms. */
  readonly updateMs: number;
}

export async function historyWriteTotals(metricsUrl: string): Promise<HistoryWriteTotals> {
  return historyWriteTotalsOf(await fetchExposition(metricsUrl));
}

/** The totals in a Prometheus text exposition, summed over every label set (services, priorities). */
export function historyWriteTotalsOf(exposition: string): HistoryWriteTotals {
  const samples = samplesOf(exposition);
  return {
    slotWaits: sumOf(samples, 'semaphore_latency_count', 'operation="ShardInfo"'),
    slotWaitSeconds: sumOf(samples, 'semaphore_latency_sum', 'operation="ShardInfo"'),
    updates: sumOf(samples, 'persistence_latency_count', 'operation="UpdateWorkflowExecution"'),
    updateSeconds: sumOf(samples, 'persistence_latency_sum', 'operation="UpdateWorkflowExecution"'),
  };
}

export function historyWritesBetween(before: HistoryWriteTotals, after: HistoryWriteTotals): HistoryWrites {
  const writes = after.slotWaits - before.slotWaits;
  const updates = after.updates - before.updates;
  return {
    writes,
    slotWaitMs: writes > 0 ? ((after.slotWaitSeconds - before.slotWaitSeconds) * 1000) / writes : 0,
    updateMs: updates > 0 ? ((after.updateSeconds - before.updateSeconds) * 1000) / updates : 0,
  };
}
