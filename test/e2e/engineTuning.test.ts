/**
 * The engine tuning takes effect where that can be seen without a stopwatch: the dev server is
 * started with every server setting (its command line, its SQLite file in WAL mode), the worker
 * with every worker setting and the configured cache size; and the overhead and scale benches'
 * harnesses run the floors and agentd side by side on a real stack.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { compareWithFloor } from '../../bench/overhead';
import { runCell, type Contender } from '../../bench/scale/cell';
import { devServerOf } from '../../bench/scale/servers';
import { readConfig } from '../../src/config/config';
import { ConfigError } from '../../src/config/configError';
import { DEFAULT_MAX_CONCURRENT_ACTIVITIES, DEFAULT_WORKFLOW_CACHE_SIZE, ENGINE_TUNING } from '../../src/config/engineTuning';
import { createModelClient } from '../../src/model/client';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { createAgentWorker } from '../../src/worker';
import { suiteStack } from '../helpers/suiteStack';

/** The arguments a running process was started with, from /proc (Linux). */
function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
}

/** The SDK turns a worker's activity limit into a fixed-size slot supplier. */
function activitySlots(worker: Worker): number | undefined {
  const supplier = worker.options.tuner.activityTaskSlotSupplier;
  return supplier.type === 'fixed-size' ? supplier.numSlots : undefined;
}

describe('engine tuning on a real stack', () => {
  const stack = suiteStack();

  test('the dev server runs with every server setting of the table', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
    const { server } = stack.temporal;
    const args = commandLine(server.pid);
    for (const [key, value] of Object.entries(ENGINE_TUNING.server.dynamicConfig)) {
      assert.equal(server.settings.dynamicConfig[key], value, `${key} is reported`);
      assert.ok(args.includes(`${key}=${JSON.stringify(value)}`), `${key} is on the server's command line: ${args.join(' ')}`);
    }
    for (const [name, value] of Object.entries(ENGINE_TUNING.server.sqlitePragmas)) {
      assert.equal(server.settings.sqlitePragmas[name], value);
      assert.ok(args.includes(`${name}=${value}`), `pragma ${name} is on the server's command line`);
    }
    // The pragma was applied, not just passed: SQLite keeps a write-ahead log beside the file only in WAL mode.
    assert.ok(existsSync(`${server.dbFile}-wal`), `${server.dbFile}-wal exists`);
  });

  test('createAgentWorker applies the worker settings and the cache size and activity slots it is given', async () => {
    const connection = await NativeConnection.connect({ address: stack.temporal.address });
    try {
      const deps = { store: stack.store, tools: createBuiltinRegistry(), workspaceRoot: stack.workspaceRoot, model: createModelClient({ baseURL: 'http://127.0.0.1:9' }) };
      // A worker holds its connection until it has run and shut down, so each one runs briefly.
      const tuned = await createAgentWorker({ connection, workflowBundle: stack.bundle, deps });
      await tuned.runUntil(async () => {
        assert.equal(tuned.options.maxCachedWorkflows, DEFAULT_WORKFLOW_CACHE_SIZE);
        assert.equal(activitySlots(tuned), DEFAULT_MAX_CONCURRENT_ACTIVITIES);
        assert.equal(tuned.options.maxEagerActivityReservationsPerWorkflowTask, ENGINE_TUNING.worker.maxEagerActivityReservationsPerWorkflowTask);
        assert.equal(tuned.options.reuseV8Context, ENGINE_TUNING.worker.reuseV8Context);
      });
      const small = await createAgentWorker({ connection, workflowBundle: stack.bundle, deps, workflowCacheSize: 7, maxConcurrentActivities: 30 });
      await small.runUntil(async () => {
        assert.equal(small.options.maxCachedWorkflows, 7);
        assert.equal(activitySlots(small), 30);
      });
    } finally {
      await connection.close();
    }
  });

  test('the overhead harness runs both floors and agentd, same step shape, at a small scale', async () => {
    const result = await compareWithFloor(stack, { singleSteps: 3, concurrent: 3, concurrentSteps: 2, rounds: 1 });
    for (const floor of [result.single.floor, result.single.ioFloor]) assert.equal(floor.steps, 3);
    for (const floor of [result.concurrent.floor, result.concurrent.ioFloor]) assert.equal(floor.steps, 6);
    assert.ok(result.single.agentd.steps >= 3, `agentd ran its steps: ${result.single.agentd.steps}`);
    assert.ok(result.concurrent.agentd.steps >= 6);
    const { floor, agentd } = result.timelines;
    assert.equal(floor.activities, 2 * floor.steps, 'the floor runs two activities per step');
    assert.deepEqual(Object.keys(floor.activityRunMs).sort(), ['floorModel', 'floorTool']);
    const { ioFloor } = result.timelines;
    assert.equal(ioFloor.activities, 2 * ioFloor.steps, 'the I/O floor runs the same two activities per step');
    // Its I/O is real: a reply from the fixed-reply endpoint and a tool result per step, in the store
    // agentd uses (warm-up 2 steps, one session of 3, three of 2).
    const ioRows = (await stack.store.sessions()).filter((session) => session.sessionId.startsWith('io-floor-'));
    assert.equal(ioRows.reduce((sum, session) => sum + session.messages, 0), 2 * (2 + 3 + 6));
    for (const type of ['callModel', 'runTool']) assert.ok(type in agentd.activityRunMs, `agentd ran ${type}`);
    assert.ok(agentd.workflowTasks > agentd.steps && floor.workflowTasks > floor.steps);
  });
  test('the scale harness counts steps and CPU of worker processes on both contenders, and leaves nothing running', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
    const server = devServerOf(stack);
    const latencyMs = 300;
    const windowSeconds = 3;
    for (const contender of ['ioFloor', 'agentd'] satisfies Contender[]) {
      const cell = await runCell({ server, contender, workers: 1, sessions: 3, latencyMs, windowSeconds }, () => {});
      assert.equal(cell.sessionsStepping, 3, `${contender}: every session was answered before the window`);
      // No session can step faster than the model answers; each steps a few times in the window.
      assert.ok(cell.steps >= 3 && cell.steps <= (3 * windowSeconds * 1000) / latencyMs + 3, `${contender}: ${cell.steps} steps in ${cell.seconds} s`);
      assert.ok(cell.beyondModelMs.samples > 0 && cell.beyondModelMs.p50 >= 0, `${contender}: steps timed beyond the model`);
      assert.ok(cell.cpuMs.workers > 0 && cell.cpuMs.server > 0, `${contender}: CPU read from /proc: ${JSON.stringify(cell.cpuMs)}`);
      assert.ok(cell.workerRssBytes.before > 0 && cell.workerRssBytes.after > 0);
      if (existsSync('/proc/pressure/cpu')) assert.ok(cell.cpuPressure !== undefined && cell.cpuPressure >= 0 && cell.cpuPressure <= 1, `${contender}: CPU pressure ${cell.cpuPressure}`);
      assert.equal(cell.historyWrites, undefined, 'the dev server serves no metrics to read them from');
    }
    const running = await stack.client.workflow.count(`ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH 'scale-'`);
    assert.equal(running.count, 0, 'every session of both cells was terminated');
  });
});

describe('AGENTD_MAX_CONCURRENT_ACTIVITIES', () => {
  test('defaults, takes a positive whole number, refuses the rest naming the variable', () => {
    assert.equal(readConfig({}).maxConcurrentActivities, DEFAULT_MAX_CONCURRENT_ACTIVITIES);
    assert.equal(readConfig({ AGENTD_MAX_CONCURRENT_ACTIVITIES: '250' }).maxConcurrentActivities, 250);
    for (const bad of ['0', '-3', '2.5', 'many']) {
      assert.throws(() => readConfig({ AGENTD_MAX_CONCURRENT_ACTIVITIES: bad }), (error: unknown) => error instanceof ConfigError && /AGENTD_MAX_CONCURRENT_ACTIVITIES/.test(error.message), bad);
    }
  });
});

describe('AGENTD_WORKFLOW_CACHE_SIZE', () => {
  test('defaults, accepts 0 and sizes from 2, refuses the rest naming the variable', () => {
    assert.equal(readConfig({}).workflowCacheSize, DEFAULT_WORKFLOW_CACHE_SIZE);
    assert.equal(readConfig({ AGENTD_WORKFLOW_CACHE_SIZE: '0' }).workflowCacheSize, 0);
    assert.equal(readConfig({ AGENTD_WORKFLOW_CACHE_SIZE: '250' }).workflowCacheSize, 250);
    for (const bad of ['1', '-3', '2.5', 'many', '1000000']) {
      assert.throws(() => readConfig({ AGENTD_WORKFLOW_CACHE_SIZE: bad }), (error: unknown) => error instanceof ConfigError && /AGENTD_WORKFLOW_CACHE_SIZE/.test(error.message), bad);
    }
  });
});
