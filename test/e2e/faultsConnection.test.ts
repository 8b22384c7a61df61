/**
 * Faults beyond a clean kill: a worker that is paused (SIGSTOP) while a write tool or a model call
 * runs on it, and comes back (SIGCONT) after another worker took its work over; and a worker whose
 * network to Temporal goes dark (a TCP proxy that stops moving bytes but closes nothing) for
 * longer than the heartbeat timeout. Real parts: a dev server, worker processes on one SQLite
 * transcript file, HTTP to the simulator through a recording proxy.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SessionResult } from '../../src/session/state';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import type { StoredMessage } from '../../src/store/transcriptStore';
import { closedActivities, pidOf, runningAttempt } from '../helpers/activityWatch';
import { startBlackholeProxy, type BlackholeProxy } from '../helpers/blackholeProxy';
import { startRecordingProxy, type RecordingProxy } from '../../harness/recordingProxy';
import { eventually } from '../../harness/stack';
import { auditModelCalls, pairingProblems, seqGaps } from '../../harness/transcriptChecks';
import { startWorkerProcess, type WorkerEnv, type WorkerProcess } from '../../harness/workerProcess';
import { suiteStack } from '../helpers/suiteStack';

const MINUTE = 60_000;
/** Longer than the 6 s heartbeat timeout of callModel and runTool (src/workflows/activityOptions.ts). */
const CUT_MS = 15_000;
/** Issue 26: a paused worker's activity runs on another worker within 10 s. */
const TAKEOVER_MS = 10_000;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Seq of step N's reply (system 0, task 1, then a reply and a tool result per step). */
function replySeq(step: number): number {
  return 2 * step;
}

function assistantRows(rows: readonly StoredMessage[]): number {
  return rows.filter((row) => row.message.role === 'assistant').length;
}

/** Every check a stored transcript must pass whatever happened to the workers, as one list of problems. */
function transcriptProblems(rows: readonly StoredMessage[], steps: number): string[] {
  const problems = [...seqGaps(rows).map((seq) => `seq ${seq} missing`), ...pairingProblems(rows)];
  if (new Set(rows.map((row) => row.seq)).size !== rows.length) problems.push('a seq stored twice');
  if (rows[0]?.seq !== 0) problems.push('seqs do not start at 0');
  if (rows.length !== 2 + 2 * steps) problems.push(`${rows.length} rows for ${steps} steps`);
  return problems;
}

function describeAbsorbed(attempts: readonly number[]): string {
  return attempts.length === 0 ? 'no retry went to the paused worker' : `retry attempt(s) ${attempts.join(', ')} went to the paused worker's open polls`;
}

function linesOf(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : [];
}

describe('faults on the connection', { concurrency: 1 }, () => {
  const stack = suiteStack();

  /** Two worker processes on the stack's queue and SQLite file, talking to the model through `proxy`. */
  function twoWorkers(proxy: RecordingProxy): [WorkerProcess, WorkerProcess] {
    const env: WorkerEnv = {
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: proxy.baseURL,
    };
    return [startWorkerProcess(env), startWorkerProcess(env)];
  }

  /**
   * Pauses the worker running the attempt, waits until the other worker stored `seq`, and lets the
   * paused one go on. Returns the paused worker and how long it was stopped.
   */
  async function pauseUntilStored(
    workers: readonly WorkerProcess[],
    identity: string,
    sessionId: string,
    seq: number,
    activityType: string,
  ): Promise<{ paused: WorkerProcess; other: WorkerProcess; pausedMs: number; takeoverMs: number; absorbed: number[] }> {
    const paused = workers.find((worker) => worker.pid === pidOf(identity));
    const other = workers.find((worker) => worker !== paused);
    assert.ok(paused && other, `the attempt runs on one of the two workers (${identity})`);
    process.kill(paused.pid, 'SIGSTOP');
    const pausedAt = Date.now();
    // Retries the server handed to the paused worker's open polls: each waits out a heartbeat timeout.
    const absorbed = new Set<number>();
    // When the other worker was first seen running the activity, or else had stored its result: an upper bound of the takeover.
    let takenOverAt: number | undefined;
    try {
      await eventually(
        async () => {
          const attempt = await runningAttempt(stack.client, sessionId, activityType);
          if (attempt && attempt.attempt > 1 && pidOf(attempt.identity) === paused.pid) absorbed.add(attempt.attempt);
          if (attempt && pidOf(attempt.identity) === other.pid) takenOverAt ??= Date.now();
          const stored = (await stack.store.get(sessionId, seq)) !== undefined;
          if (stored) takenOverAt ??= Date.now();
          return stored ? true : undefined;
        },
        `seq ${seq} stored by the other worker`,
        2 * MINUTE,
      );
    } finally {
      process.kill(paused.pid, 'SIGCONT');
    }
    const takeoverMs = (takenOverAt ?? Date.now()) - pausedAt;
    return { paused, other, pausedMs: Date.now() - pausedAt, takeoverMs, absorbed: [...absorbed] };
  }

  it('runs a write tool once when its worker is paused mid-call and another takes over', { timeout: 3 * MINUTE }, async () => {
    const simulator = await startSimulator({ latencyMs: 20 });
    const proxy = await startRecordingProxy(simulator.port);
    const workers = twoWorkers(proxy);
    try {
      // Step 2 appends a line, then stays in the tool long enough to be paused inside it.
      const task = [
        'pause the worker inside a command [sim steps=8]',
        '[sim call write_file {"path":"before.txt","content":"written before the pause\\n"}]',
        '[sim call run_command {"command":"echo appended >> ledger.txt; sleep 6"}]',
      ].join('\n');
      const STEPS = 9; // 8 tool steps and the finish call
      const COMMAND_STEP = 2;
      const handle = await stack.sessions.start({ task, model: 'agentd-sim' });
      const id = handle.workflowId;
      const ledger = join(stack.workspaceRoot, id, 'ledger.txt');
      const running = await eventually(
        async () => (existsSync(ledger) ? runningAttempt(stack.client, id, 'runTool') : undefined),
        'run_command running with its line appended',
        MINUTE,
      );
      const { paused, other, pausedMs, takeoverMs, absorbed } = await pauseUntilStored(workers, running.identity, id, replySeq(COMMAND_STEP) + 1, 'runTool');

      const outcome: SessionResult = await stack.sessions.result(id);
      assert.equal(outcome.outcome, 'finished');
      assert.equal(outcome.steps, STEPS);
      const rows = await stack.store.list(id);
      assert.deepEqual(transcriptProblems(rows, STEPS), [], 'the transcript is whole: no gap, no seq twice, every call answered');
      const commandResult = rows.find((row) => row.seq === replySeq(COMMAND_STEP) + 1);
      assert.ok(commandResult?.message.role === 'tool', 'the command has a stored result');
      const interrupted = commandResult.message.content.startsWith('error: interrupted');
      assert.ok(interrupted, `the takeover reported the effect as unknown instead of running the command again: ${commandResult.message.content}`);
      assert.deepEqual(linesOf(ledger), ['appended'], 'the command ran once');

      const attempts = (await closedActivities(stack.client, id, 'runTool')).find((activity) => activity.seq === replySeq(COMMAND_STEP) + 1);
      assert.ok(attempts && attempts.attempt >= 2, `the tool was retried after the pause (attempt ${attempts?.attempt})`);
      assert.equal(pidOf(attempts.identity), other.pid, 'the other worker ran the attempt that counted');
      assert.ok(takeoverMs <= TAKEOVER_MS, `the other worker took the attempt over within ${seconds(TAKEOVER_MS)} of the pause (${seconds(takeoverMs)})`);
      assert.ok(paused.alive() && other.alive(), 'both workers still run');
      const audit = auditModelCalls(rows, proxy.calls());
      assert.deepEqual(audit.duplicates, [], 'no model call for a reply already stored');
      assert.equal(outcome.spend?.agent.calls, assistantRows(rows), 'the ledger counts each stored reply once');
      assert.equal(totalRejected(simulator.stats()), 0, 'the strict endpoint refused nothing');
      console.log(
        `SIGSTOP inside run_command (step ${COMMAND_STEP}, attempt ${running.attempt} on worker ${paused.pid}): taken over within ${seconds(takeoverMs)}, paused ${seconds(pausedMs)}, ` +
          `${describeAbsorbed(absorbed)}, worker ${other.pid} took over at attempt ${attempts.attempt} and stored "${commandResult.message.content.slice(0, 40)}…"; ` +
          `after SIGCONT: ${outcome.steps} steps, ledger.txt has ${linesOf(ledger).length} line, ${rows.length} rows, seq problems 0, ` +
          `spend.agent.calls ${outcome.spend?.agent.calls} = ${assistantRows(rows)} replies, ${proxy.calls().length} model requests`,
      );
    } finally {
      for (const worker of workers) await worker.stop('SIGTERM');
      await proxy.stop();
      await simulator.stop();
    }
  });

  it('stores one reply and counts one call when a worker is paused while its model call is in flight', { timeout: 3 * MINUTE }, async () => {
    const SLOW_REQUEST = 3; // 0-based: step 4's model call
    const SLOW_MS = 6_000;
    const simulator = await startSimulator({
      latencyMs: 20,
      faultPlan: (index) => (index === SLOW_REQUEST ? { kind: 'latency', ms: SLOW_MS } : undefined),
    });
    const proxy = await startRecordingProxy(simulator.port);
    const workers = twoWorkers(proxy);
    try {
      const STEPS = 7;
      const handle = await stack.sessions.start({ task: 'pause the worker inside a model call [sim steps=6]', model: 'agentd-sim' });
      const id = handle.workflowId;
      const running = await eventually(
        async () => {
          const slow = proxy.calls()[SLOW_REQUEST];
          return slow && slow.status === undefined ? runningAttempt(stack.client, id, 'callModel') : undefined;
        },
        'the slow model call in flight',
        MINUTE,
      );
      const { paused, other, pausedMs, takeoverMs, absorbed } = await pauseUntilStored(workers, running.identity, id, replySeq(SLOW_REQUEST + 1), 'callModel');

      const outcome: SessionResult = await stack.sessions.result(id);
      assert.equal(outcome.outcome, 'finished');
      assert.equal(outcome.steps, STEPS);
      const rows = await stack.store.list(id);
      assert.deepEqual(transcriptProblems(rows, STEPS), [], 'the transcript is whole: no gap, no seq twice, every call answered');
      const calls = proxy.calls();
      assert.equal(calls[SLOW_REQUEST]?.status, 200, 'the paused worker’s request was answered (its late result existed)');
      assert.equal(calls.length, assistantRows(rows) + 1, 'one model request per stored reply, plus the paused worker’s');
      const audit = auditModelCalls(rows, calls);
      assert.deepEqual(audit.unmatched, [], 'every reply matched to its request');
      assert.deepEqual(audit.duplicates, [], 'no model call for a reply already stored');
      assert.equal(outcome.spend?.agent.calls, assistantRows(rows), 'the ledger counts the reply once, not once per worker');
      const attempts = (await closedActivities(stack.client, id, 'callModel'))[SLOW_REQUEST];
      assert.ok(attempts && attempts.attempt >= 2, `the model call was retried after the pause (attempt ${attempts?.attempt})`);
      assert.equal(pidOf(attempts.identity), other.pid, 'the other worker ran the attempt that counted');
      assert.ok(takeoverMs <= TAKEOVER_MS, `the other worker took the attempt over within ${seconds(TAKEOVER_MS)} of the pause (${seconds(takeoverMs)})`);
      assert.ok(paused.alive() && other.alive(), 'both workers still run');
      assert.equal(totalRejected(simulator.stats()), 0, 'the strict endpoint refused nothing');
      console.log(
        `SIGSTOP inside a ${seconds(SLOW_MS)} model call (step ${SLOW_REQUEST + 1} on worker ${paused.pid}): taken over within ${seconds(takeoverMs)}, paused ${seconds(pausedMs)}, ` +
          `${describeAbsorbed(absorbed)}, worker ${other.pid} took over at attempt ${attempts.attempt}; after SIGCONT: ${outcome.steps} steps, ${rows.length} rows, seq problems 0, ` +
          `${calls.length} model requests for ${assistantRows(rows)} replies (${audit.retriedBeforeStore} re-sent before the store, ${audit.duplicates.length} duplicates), ` +
          `spend.agent.calls ${outcome.spend?.agent.calls}, possiblyBilledCalls ${outcome.spend?.agent.possiblyBilledCalls ?? 0}`,
      );
    } finally {
      for (const worker of workers) await worker.stop('SIGTERM');
      await proxy.stop();
      await simulator.stop();
    }
  });

  /** One worker process that reaches Temporal only through a proxy that can be cut. */
  async function workerBehindProxy(simulator: RunningSimulator): Promise<{ worker: WorkerProcess; network: BlackholeProxy }> {
    const network = await startBlackholeProxy(stack.temporal.address);
    const worker = startWorkerProcess({
      temporalAddress: network.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: simulator.baseURL,
    });
    return { worker, network };
  }

  async function storedReplies(sessionId: string): Promise<number> {
    return assistantRows(await stack.store.list(sessionId));
  }

  it(`reconnects by itself after its network to Temporal is cut for ${seconds(CUT_MS)} and its connections dropped`, { timeout: 3 * MINUTE }, async () => {
    const simulator = await startSimulator({ latencyMs: 100 });
    const { worker, network } = await workerBehindProxy(simulator);
    try {
      const STEPS = 25;
      const handle = await stack.sessions.start({ task: 'lose the network [sim steps=24]', model: 'agentd-sim' });
      const id = handle.workflowId;
      await eventually(async () => ((await storedReplies(id)) >= 5 ? true : undefined), 'step 5', MINUTE);
      const connectionsBefore = network.connections();
      network.blackhole();
      const atCut = await storedReplies(id);
      await sleep(CUT_MS);
      const atRestore = await storedReplies(id);
      // The connections that lived through the cut are reset: the worker has to open new ones.
      network.restore({ reset: true });
      const restoredAt = Date.now();
      const outcome: SessionResult = await stack.sessions.result(id);
      const afterRestoreMs = Date.now() - restoredAt;

      assert.ok(worker.alive(), 'the worker process never gave up');
      assert.ok(network.connections() > connectionsBefore, 'the worker opened new connections after the reset');
      assert.equal(outcome.outcome, 'finished');
      assert.equal(outcome.steps, STEPS);
      const rows = await stack.store.list(id);
      assert.deepEqual(transcriptProblems(rows, STEPS), [], 'no activity result lost: no gap, every call answered');
      assert.ok(atRestore - atCut <= 1, `at most the step in flight finished during the cut (${atCut} → ${atRestore})`);
      assert.equal(outcome.spend?.agent.calls, assistantRows(rows));
      assert.equal(simulator.stats().requests, assistantRows(rows), 'one model request per stored reply');
      assert.equal(totalRejected(simulator.stats()), 0);
      console.log(
        `network to Temporal cut for ${seconds(CUT_MS)} at step ${atCut} (${atRestore} replies stored when restored): ` +
          `connections reset on restore, worker reconnected by itself (${connectionsBefore} → ${network.connections()} TCP connections accepted), ` +
          `finished ${outcome.steps - atRestore} more steps in ${seconds(afterRestoreMs)}; ${rows.length} rows, seq problems 0, ` +
          `${simulator.stats().requests} model requests`,
      );
    } finally {
      network.restore();
      await worker.stop('SIGTERM');
      await network.stop();
      await simulator.stop();
    }
  });

  it('keeps the result of a tool that finished while the network to Temporal was cut', { timeout: 3 * MINUTE }, async () => {
    const simulator = await startSimulator({ latencyMs: 20 });
    const { worker, network } = await workerBehindProxy(simulator);
    try {
      const task = [
        'lose the network inside a command [sim steps=6]',
        '[sim call list_files {"path":"."}]',
        '[sim call run_command {"command":"echo appended >> cut.txt; sleep 4; echo done"}]',
      ].join('\n');
      const STEPS = 7;
      const COMMAND_STEP = 2;
      const handle = await stack.sessions.start({ task, model: 'agentd-sim' });
      const id = handle.workflowId;
      const file = join(stack.workspaceRoot, id, 'cut.txt');
      const running = await eventually(
        async () => (existsSync(file) ? runningAttempt(stack.client, id, 'runTool') : undefined),
        'run_command running',
        MINUTE,
      );
      const connectionsBefore = network.connections();
      network.blackhole();
      await sleep(CUT_MS);
      const storedDuringCut = (await stack.store.get(id, replySeq(COMMAND_STEP) + 1)) !== undefined;
      network.restore();
      const restoredAt = Date.now();
      const outcome: SessionResult = await stack.sessions.result(id);
      const afterRestoreMs = Date.now() - restoredAt;

      assert.ok(worker.alive(), 'the worker process never gave up');
      assert.equal(outcome.outcome, 'finished');
      assert.equal(outcome.steps, STEPS);
      const rows = await stack.store.list(id);
      assert.deepEqual(transcriptProblems(rows, STEPS), [], 'no activity result lost: no gap, every call answered');
      assert.ok(storedDuringCut, 'the tool finished and stored its result while the network was cut');
      const result = rows.find((row) => row.seq === replySeq(COMMAND_STEP) + 1);
      assert.ok(result?.message.role === 'tool' && result.message.content.includes('done'), `the command's own output was kept: ${result?.message.content}`);
      assert.deepEqual(linesOf(file), ['appended'], 'the command ran once');
      const attempts = (await closedActivities(stack.client, id, 'runTool')).find((activity) => activity.seq === replySeq(COMMAND_STEP) + 1);
      assert.ok(attempts && attempts.attempt >= 2, `the server timed the attempt out and retried it (attempt ${attempts?.attempt})`);
      assert.equal(totalRejected(simulator.stats()), 0);
      console.log(
        `network to Temporal cut for ${seconds(CUT_MS)} inside run_command (step ${COMMAND_STEP}, attempt ${running.attempt}): ` +
          `held bytes flushed on restore (${connectionsBefore} → ${network.connections()} TCP connections accepted), result stored during the cut, server retried it as attempt ${attempts.attempt}, which returned the stored row; ` +
          `cut.txt has ${linesOf(file).length} line; ${outcome.steps} steps, ${STEPS - COMMAND_STEP} after the cut in ${seconds(afterRestoreMs)}; seq problems 0`,
      );
    } finally {
      network.restore();
      await worker.stop('SIGTERM');
      await network.stop();
      await simulator.stop();
    }
  });
});
