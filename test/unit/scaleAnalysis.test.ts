/** The scale benchmark's reading of its cells: knees, the bounding process, the larger-host prediction. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { kneesOf, pairsOf, predictHost, profile, workerCpuRatio } from '../../bench/scale/analysis';
import type { CellResult, Contender } from '../../bench/scale/cell';
import { historyWritesBetween, historyWriteTotalsOf } from '../../bench/scale/historyWrites';
import { percentile, StepClock } from '../../bench/scale/stepClock';
import { workerTasksBetween, workerTaskTotalsOf } from '../../bench/scale/workerTasks';

function cell(contender: Contender, sessions: number, stepsPerSecond: number, workerMsPerStep: number): CellResult {
  const seconds = 10;
  const steps = stepsPerSecond * seconds;
  return {
    server: 'cluster',
    contender,
    workers: 1,
    sessions,
    sessionsStepping: sessions,
    steps,
    seconds,
    stepsPerSecond,
    idealStepsPerSecond: sessions / 2,
    cpuMs: { workers: workerMsPerStep * steps, server: 3 * steps, database: 2 * steps, bench: 1 * steps },
    workerRssBytes: { before: 100, after: 100 + 1000 * sessions },
    beyondModelMs: { p50: 50, p99: 200, samples: steps },
    workerTasks: { workflowTasks: 2 * steps, cacheMisses: 0, activities: 2 * steps, localActivities: 0, scheduleToStartMs: 5 },
  };
}

describe('scale analysis', () => {
  const cells = [
    cell('agentd', 50, 24, 6),
    cell('ioFloor', 50, 24.5, 4),
    cell('agentd', 200, 95, 6),
    cell('ioFloor', 200, 98, 4),
    cell('agentd', 1000, 150, 7),
    cell('ioFloor', 1000, 300, 4),
  ];

  test('a series passes its knee at the first fleet under 0.9 of the ideal', () => {
    const agentd = kneesOf(cells).find((knee) => knee.contender === 'agentd');
    assert.equal(agentd?.lastBelow?.sessions, 200);
    assert.equal(agentd?.firstPast?.sessions, 1000);
    const floor = kneesOf(cells).find((knee) => knee.contender === 'ioFloor');
    assert.equal(floor?.firstPast?.sessions, 1000, '300 of an ideal 500 is past it');
  });

  test("agentd's worker CPU per step is compared with the floor's of the same cell", () => {
    assert.deepEqual(pairsOf(cells).map(workerCpuRatio), [1.5, 1.5, 1.75]);
  });

  test('the profile ranks processes by cores kept busy', () => {
    // 150 steps/s at 7 ms is 1.05 cores; the server's 3 ms is 0.45.
    assert.deepEqual(profile(cells[4]!).map((part) => part.process), ['worker', 'Temporal cluster', 'PostgreSQL', 'benchmark (model + client)']);
    assert.equal(profile(cells[4]!)[0]!.cores, 1.05);
  });

  test('a larger host is predicted from CPU per step with a quarter kept spare', () => {
    const host = predictHost(16, cells[0]!, 2000);
    assert.equal(host.stepsPerSecond, (16 * 1000 * 0.75) / 6);
    assert.equal(host.sessions, host.stepsPerSecond * 2.05);
    assert.equal(host.serverCores, (host.stepsPerSecond * 5) / 1000);
  });
});

describe('StepClock', () => {
  test('counts answers inside the window and times steps that began and ended in it', () => {
    const clock = new StepClock();
    clock.answered('a', 0);
    clock.startWindow();
    const opened = performance.now();
    clock.answered('a', opened + 2100);
    clock.answered('b', opened + 2200);
    clock.answered('a', opened + 4300);
    const counted = clock.endWindow();
    assert.equal(clock.sessionsAnswered(1), 2);
    assert.equal(clock.sessionsAnswered(3), 1);
    assert.equal(clock.sessionsAnswered(4), 0);
    assert.equal(counted.steps, 3);
    // a's first step in the window began before it opened: only its second is timed.
    assert.deepEqual(counted.stepIntervalsMs.map(Math.round), [2200]);
  });

  test('percentile is the nearest rank', () => {
    assert.equal(percentile([5, 1, 4, 2, 3], 0.5), 3);
    assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.99), 10);
    assert.ok(Number.isNaN(percentile([], 0.5)));
  });
});

describe('history writes from a Temporal server metrics page', () => {
  const page = (slotWaits: number, waitSeconds: number, updates: number, updateSeconds: number) =>
    [
      '# HELP semaphore_latency semaphore_latency histogram',
      `semaphore_latency_sum{operation="ShardInfo",priority="0",service_name="history"} ${waitSeconds * 0.75}`,
      `semaphore_latency_count{operation="ShardInfo",priority="0",service_name="history"} ${slotWaits - 1}`,
      `semaphore_latency_sum{operation="ShardInfo",priority="1",service_name="history"} ${waitSeconds * 0.25}`,
      `semaphore_latency_count{operation="ShardInfo",priority="1",service_name="history"} 1`,
      `semaphore_latency_count{operation="Other",priority="0",service_name="history"} 99`,
      `persistence_latency_sum{operation="UpdateWorkflowExecution",service_name="history"} ${updateSeconds}`,
      `persistence_latency_count{operation="UpdateWorkflowExecution",service_name="history"} ${updates}`,
      `persistence_latency_count{operation="GetWorkflowExecution",service_name="history"} 7`,
      'persistence_latency_bucket{operation="UpdateWorkflowExecution",service_name="history",le="0.01"} 3',
    ].join('\n');

  test('sums every label set of the shard slot and the workflow update, and nothing else', () => {
    assert.deepEqual(historyWriteTotalsOf(page(10, 0.2, 8, 0.06)), { slotWaits: 10, slotWaitSeconds: 0.2, updates: 8, updateSeconds: 0.06 });
  });

  test("a window's writes are the difference of two pages, in mean ms", () => {
    const writes = historyWritesBetween(historyWriteTotalsOf(page(10, 0.2, 8, 0.06)), historyWriteTotalsOf(page(110, 2.2, 88, 0.86)));
    assert.equal(writes.writes, 100);
    assert.ok(Math.abs(writes.slotWaitMs - 20) < 1e-9, String(writes.slotWaitMs));
    assert.ok(Math.abs(writes.updateMs - 10) < 1e-9, String(writes.updateMs));
    assert.deepEqual(historyWritesBetween(historyWriteTotalsOf(page(10, 0.2, 8, 0.06)), historyWriteTotalsOf(page(10, 0.2, 8, 0.06))), { writes: 0, slotWaitMs: 0, updateMs: 0 });
  });
});

describe("the workers' tasks in a window", () => {
  // What one worker's SDK endpoint serves, cut down: the counters read, under the labels the SDK gives them.
  const page = (workflowTasks: number, misses: number, waitedMs: number) =>
    [
      '# HELP temporal_workflow_task_execution_latency Histogram of workflow task execution (not replay) latencies',
      `temporal_workflow_task_execution_latency_count{namespace="default",task_queue="agentd",workflow_type="agentSession"} ${workflowTasks}`,
      `temporal_workflow_task_execution_latency_bucket{namespace="default",task_queue="agentd",workflow_type="agentSession",le="50"} ${workflowTasks}`,
      ...(misses > 0 ? [`temporal_sticky_cache_miss{namespace="default",task_queue="agentd"} ${misses}`] : []),
      `temporal_activity_execution_latency_count{activity_type="callModel",namespace="default",task_queue="agentd"} ${workflowTasks}`,
      `temporal_activity_execution_latency_count{activity_type="runTool",namespace="default",task_queue="agentd-host-a"} 3`,
      `temporal_local_activity_total{activity_type="runTool",namespace="default",task_queue="agentd"} 2`,
      `temporal_workflow_task_schedule_to_start_latency_sum{namespace="default",task_queue="agentd"} ${waitedMs * workflowTasks}`,
      `temporal_workflow_task_schedule_to_start_latency_count{namespace="default",task_queue="agentd"} ${workflowTasks}`,
    ].join('\n');

  test('sums each counter over every label set and every worker', () => {
    assert.deepEqual(workerTaskTotalsOf([page(10, 0, 4), page(30, 2, 8)]), {
      workflowTasks: 40,
      cacheMisses: 2,
      activities: 46,
      localActivities: 4,
      scheduleToStartMs: 280,
      started: 40,
    });
  });

  test("a window's tasks are the difference of two readings, the wait a mean over the tasks that started in it", () => {
    const tasks = workerTasksBetween(workerTaskTotalsOf([page(10, 0, 4)]), workerTaskTotalsOf([page(30, 5, 9)]));
    assert.deepEqual(tasks, { workflowTasks: 20, cacheMisses: 5, activities: 20, localActivities: 0, scheduleToStartMs: (270 - 40) / 20 });
    assert.equal(workerTasksBetween(workerTaskTotalsOf([page(10, 0, 4)]), workerTaskTotalsOf([page(10, 0, 4)])).scheduleToStartMs, 0);
  });
});
