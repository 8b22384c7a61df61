/**
 * Graceful shutdown of a worker process: SIGTERM drains (the model call in flight finishes and is
 * stored, the process exits 0), a grace period that runs out cancels the call through its
 * heartbeat, and a second signal exits at once. Each time another worker finishes the session with
 * nothing lost and no step taken twice.
 */
import type { temporal } from '@temporalio/proto';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import { startRecordingProxy, type ProxiedCall } from '../../harness/recordingProxy';
import { eventually, type Stack } from '../../harness/stack';
import { auditModelCalls, pairingProblems, seqGaps } from '../../harness/transcriptChecks';
import { startWorkerProcess, type WorkerEnv, type WorkerProcess } from '../../harness/workerProcess';
import { suiteStack } from '../helpers/suiteStack';

const MINUTE = 60_000;
const STEPS = 8;

interface Scenario {
  /** How long the third model call takes: the signal lands inside it. The others are quick. */
  readonly slowCallMs: number;
  readonly graceSeconds: number;
  /** Signals sent to the first worker, a moment apart. */
  readonly signals: readonly NodeJS.Signals[];
}

interface Observed {
  readonly code: number | null;
  readonly stderr: string;
  /** The model call that was in flight when the first signal went out, as the proxy saw it end. */
  readonly inFlight: ProxiedCall;
  readonly repliesAtSignal: number;
  readonly repliesAtExit: number;
  /** Requests sent again for a context whose reply had not been stored. */
  readonly resent: number;
  /** Why earlier attempts of the session's activities ended, as the server recorded it. */
  readonly retriedAfter: readonly string[];
}

describe('graceful shutdown', { concurrency: 1 }, () => {
  const stack = suiteStack();

  async function storedReplies(sessionId: string): Promise<number> {
    return (await stack.store.list(sessionId)).filter((row) => row.message.role === 'assistant').length;
  }

  /** Signals the first worker inside a model call, lets a second one finish, and checks the transcript. */
  async function run(name: string, scenario: Scenario): Promise<Observed> {
    const SLOW_CALL = 2;
    const simulator = await startSimulator({
      latencyMs: 20,
      faultPlan: (index) => (index === SLOW_CALL ? { kind: 'latency', ms: scenario.slowCallMs } : undefined),
    });
    const proxy = await startRecordingProxy(simulator.port);
    const env: WorkerEnv = {
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: proxy.baseURL,
      extra: { AGENTD_SHUTDOWN_GRACE_SECONDS: String(scenario.graceSeconds) },
    };
    let second: WorkerProcess | undefined;
    const first = startWorkerProcess(env);
    try {
      const handle = await stack.sessions.start({ task: `${name} [sim steps=${STEPS} output=200-800]`, model: 'agentd-sim' });
      const sessionId = handle.workflowId;
      const inFlight = await eventually(
        async () => {
          if ((await storedReplies(sessionId)) < 2) return undefined;
          return proxy.calls().find((call) => call.task.startsWith(name) && call.status === undefined);
        },
        'a model call in flight after two steps',
        MINUTE,
      );
      const repliesAtSignal = await storedReplies(sessionId);
      for (const [index, signal] of scenario.signals.entries()) {
        if (index > 0) await new Promise((resolve) => setTimeout(resolve, 300));
        process.kill(first.pid, signal);
      }
      const exit = await first.done;
      const repliesAtExit = await storedReplies(sessionId);

      second = startWorkerProcess(env);
      const result = await stack.sessions.result(sessionId);
      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, STEPS + 1, 'every tool step and the finish call, each once');
      const rows = await stack.store.list(sessionId);
      assert.deepEqual(seqGaps(rows), [], 'no seq is missing');
      assert.equal(rows.length, 2 + 2 * (STEPS + 1), 'system, task, then one reply and one tool result per step');
      assert.deepEqual(pairingProblems(rows), [], 'every tool call answered once');
      const audit = auditModelCalls(rows, proxy.calls().filter((call) => call.task.startsWith(name)));
      assert.deepEqual(audit.unmatched, []);
      assert.deepEqual(audit.duplicates, [], 'no model call for a reply already stored');
      assert.equal(totalRejected(simulator.stats()), 0);
      return {
        code: exit.code,
        stderr: exit.stderr,
        inFlight,
        repliesAtSignal,
        repliesAtExit,
        resent: audit.retriedBeforeStore,
        retriedAfter: await retryCauses(stack, sessionId),
      };
    } finally {
      await first.stop('SIGKILL');
      await second?.stop('SIGTERM');
      await proxy.stop();
      await simulator.stop();
    }
  }

  it('on SIGTERM lets the model call in flight finish and store its reply, then exits 0', { timeout: 3 * MINUTE }, async () => {
    const seen = await run('drain on SIGTERM', { slowCallMs: 1500, graceSeconds: 30, signals: ['SIGTERM'] });
    assert.equal(seen.code, 0, `exit code 0, stderr:\n${seen.stderr}`);
    assert.match(seen.stderr, /SIGTERM received; draining/);
    assert.match(seen.stderr, /agentd worker: stopped/);
    assert.equal(seen.inFlight.status, 200, 'the call in flight was answered, not abandoned');
    assert.ok(seen.repliesAtExit > seen.repliesAtSignal, `its reply was stored before the exit (${seen.repliesAtSignal} → ${seen.repliesAtExit})`);
    assert.equal(seen.resent, 0, 'no model call had to be sent again');
    assert.deepEqual(seen.retriedAfter, [], 'no activity attempt failed');
  });

  it('on SIGINT with a short grace cancels the call in flight through its heartbeat and still exits 0', { timeout: 3 * MINUTE }, async () => {
    const seen = await run('cancel after grace', { slowCallMs: 6000, graceSeconds: 1, signals: ['SIGINT'] });
    assert.equal(seen.code, 0, `exit code 0, stderr:\n${seen.stderr}`);
    assert.match(seen.stderr, /SIGINT received; draining/);
    assert.equal(seen.repliesAtExit, seen.repliesAtSignal, 'the cancelled call stored nothing');
    assert.equal(seen.inFlight.status, undefined, 'the worker hung up on the call');
    assert.equal(seen.resent, 1, 'the next worker sent the cancelled call again, once');
    assert.equal(seen.retriedAfter.length, 1, `one retried attempt: ${seen.retriedAfter.join('; ')}`);
    console.log(`grace ran out: the call in flight was retried after "${seen.retriedAfter[0]}"`);
    // Reported as the shutdown it was: not left to time out, nor mistaken for a model outage.
    assert.match(seen.retriedAfter[0] ?? '', /^WorkerShutdown: /);
  });

  it('exits at once on a second signal, and the session still finishes on the next worker', { timeout: 3 * MINUTE }, async () => {
    const seen = await run('forced exit', { slowCallMs: 6000, graceSeconds: 30, signals: ['SIGTERM', 'SIGTERM'] });
    assert.equal(seen.code, 130, `exit code 130, stderr:\n${seen.stderr}`);
    assert.match(seen.stderr, /SIGTERM received; draining/);
    assert.match(seen.stderr, /SIGTERM again; exiting without waiting/);
    assert.equal(seen.repliesAtExit, seen.repliesAtSignal, 'the abandoned call stored nothing');
    // Nobody told the server: the abandoned attempt ends by its heartbeat timeout.
    assert.match(seen.retriedAfter.join('; '), /timeout/);
  });
});

/** The recorded failure of each activity attempt that was followed by another attempt. */
async function retryCauses(stack: Stack, sessionId: string): Promise<string[]> {
  const history = await stack.client.workflow.getHandle(sessionId).fetchHistory();
  return (history.events ?? [])
    .map((event) => event.activityTaskStartedEventAttributes)
    .filter((started): started is temporal.api.history.v1.IActivityTaskStartedEventAttributes => (started?.attempt ?? 1) > 1)
    .map((started) => describeFailure(started.lastFailure));
}

function describeFailure(failure: temporal.api.failure.v1.IFailure | null | undefined): string {
  if (!failure) return 'no failure recorded';
  const kind = failure.timeoutFailureInfo ? 'timeout' : failure.canceledFailureInfo ? 'cancelled' : (failure.applicationFailureInfo?.type ?? 'failure');
  return `${kind}: ${failure.message ?? ''}`;
}
