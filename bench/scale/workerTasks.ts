/**
 * What the workers' own Prometheus endpoints (the Temporal SDK's metrics) say of a cell's window:
 * how many workflow tasks, activities and local activities each step took, how many workflow tasks
 * found their session out of the worker's cache (and so replayed its history), and how long a
 * workflow task waited on the server before a worker took it. Past the knee these tell a worker
 * that works harder per step (replays) from one that waits for its tasks longer.
 */
import { fetchExposition, samplesOf, sumOf } from '../../harness/prometheus';

/** Running totals since the workers started, summed over the workers; a window's figures are the difference of two. */
export interface WorkerTaskTotals {
  readonly workflowTasks: number;
  readonly cacheMisses: number;
  readonly activities: number;
  readonly localActivities: number;
  /** Summed over the workflow tasks that started, ms (the SDK reports its latencies in ms). */
  readonly scheduleToStartMs: number;
  readonly started: number;
}

export interface WorkerTasks {
  readonly workflowTasks: number;
  /** Workflow tasks whose session was not in the worker's cache: each replayed its run's history. */
  readonly cacheMisses: number;
  readonly activities: number;
  readonly localActivities: number;
  /** Mean time a workflow task waited on the server before a worker took it, ms. */
  readonly scheduleToStartMs: number;
}

export async function workerTaskTotals(metricsUrls: readonly string[]): Promise<WorkerTaskTotals> {
  return workerTaskTotalsOf(await Promise.all(metricsUrls.map(fetchExposition)));
}

/** The totals in the workers' Prometheus text expositions, one per worker. */
export function workerTaskTotalsOf(expositions: readonly string[]): WorkerTaskTotals {
  const samples = expositions.flatMap(samplesOf);
  return {
    workflowTasks: sumOf(samples, 'temporal_workflow_task_execution_latency_count'),
    cacheMisses: sumOf(samples, 'temporal_sticky_cache_miss'),
    activities: sumOf(samples, 'temporal_activity_execution_latency_count'),
    localActivities: sumOf(samples, 'temporal_local_activity_total'),
    scheduleToStartMs: sumOf(samples, 'temporal_workflow_task_schedule_to_start_latency_sum'),
    started: sumOf(samples, 'temporal_workflow_task_schedule_to_start_latency_count'),
  };
}

export function workerTasksBetween(before: WorkerTaskTotals, after: WorkerTaskTotals): WorkerTasks {
  const started = after.started - before.started;
  return {
    workflowTasks: after.workflowTasks - before.workflowTasks,
    cacheMisses: after.cacheMisses - before.cacheMisses,
    activities: after.activities - before.activities,
    localActivities: after.localActivities - before.localActivities,
    scheduleToStartMs: started > 0 ? (after.scheduleToStartMs - before.scheduleToStartMs) / started : 0,
  };
}
