/**
 * Durable under faults: workers killed with SIGKILL over and over, the Temporal server restarted
 * under a running session, and a model, a client or a tool that misbehaves. Real parts only: dev
 * servers, worker processes, a SQLite transcript file and HTTP to the simulator.
 */
import { WorkflowFailedError } from '@temporalio/client';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isSummaryMessage } from '../../src/model/summaryFormat';
import { faultsAt, type Fault } from '../../src/simulator/options';
import { startSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import type { SessionResult, SessionState } from '../../src/session/state';
import type { TranscriptStore } from '../../src/store/transcriptStore';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { faultSeed, randomInt, seededRandom } from '../../harness/random';
import { withRecordedWorker } from '../helpers/recordedWorker';
import { startRecordingProxy } from '../../harness/recordingProxy';
import { startRestartableTemporal } from '../helpers/restartableTemporal';
import { eventually, startStack, startStackOn, type Stack } from '../../harness/stack';
import { auditModelCalls, pairingProblems, seqGaps } from '../../harness/transcriptChecks';
import { startWorkerProcess, type WorkerEnv, type WorkerProcess } from '../../harness/workerProcess';

const MALFORMED = { kind: 'malformed' } as const satisfies Fault;
/** node:test has no default timeout: a stuck session would hang the run instead of failing it. */
const MINUTE = 60_000;

/** Replies stored so far: one per step, whatever the workflow's state query can answer. */
async function storedSteps(store: TranscriptStore, sessionId: string): Promise<number> {
  return (await store.list(sessionId)).filter((row) => row.message.role === 'assistant').length;
}

/** Settles to true once `promise` settles, so a loop can watch it without awaiting it. */
function settledFlag(promise: Promise<unknown>): () => boolean {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return () => settled;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Seqs 0..n-1 and well-paired tool calls: the two properties every test below ends on. */
async function assertIntactTranscript(store: TranscriptStore, sessionId: string): Promise<void> {
  const rows = await store.list(sessionId);
  assert.deepEqual(seqGaps(rows), [], 'no seq is missing');
  assert.equal(rows[0]?.seq, 0, 'seqs start at 0');
  assert.deepEqual(pairingProblems(rows), [], 'every tool result answers the call before it, and every call is answered');
}

describe('faults', { concurrency: true }, () => {
  // This suite runs beside the other one, on a dev server of its own, so the file takes no longer
  // than its longest part.
  describe('a model endpoint that only answers garbage', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(async () => {
      await stack?.stop();
    });

    it('fails the session with a clear error once retries are spent, and keeps the stored transcript readable', { timeout: 3 * MINUTE }, async () => {
      const GOOD_CALLS = 3;
      const ATTEMPTS = 5;
      const plan = (index: number) => (index >= GOOD_CALLS ? MALFORMED : undefined);
      await withRecordedWorker(stack, { faultPlan: plan }, async (simulator, proxy) => {
        const started = Date.now();
        const handle = await stack.sessions.start({
          task: 'talk to a broken endpoint [sim steps=10]',
          model: 'agentd-sim',
          modelRetry: { maximumAttempts: ATTEMPTS, maximumIntervalSeconds: 4 },
        });
        await assert.rejects(stack.sessions.result(handle.workflowId), (error: unknown) => {
          assert.ok(error instanceof WorkflowFailedError, String(error));
          assert.match(String(error.cause?.message), /callModel failed: model call failed: .*JSON/);
          return true;
        });
        const tookMs = Date.now() - started;
        const attempts = proxy.calls().slice(GOOD_CALLS);
        assert.equal(simulator.stats().rejected.injected, attempts.length);
        assert.equal(attempts.length, ATTEMPTS, `the model activity made the ${ATTEMPTS} attempts of the session's modelRetry`);
        const longestGap = Math.max(...gaps(attempts));
        assert.ok(longestGap < 10_000, `backoff capped by maximumIntervalSeconds: longest gap ${seconds(longestGap)}`);

        const env = { TEMPORAL_ADDRESS: stack.temporal.address, AGENTD_STORE: stack.storeFile };
        const status = await finished(spawnNode(entryPoint('cli/main'), ['status', handle.workflowId, '--json'], env));
        assert.equal(status.code, 0, status.stderr);
        const state = JSON.parse(status.stdout) as SessionState;
        assert.equal(state.status, 'failed');
        assert.ok(
          state.warnings.some((warning) => /^callModel failed: model call failed: .*JSON/.test(warning)),
          `agentd status names the cause: ${state.warnings.join(' | ')}`,
        );

        const transcript = await finished(spawnNode(entryPoint('cli/main'), ['transcript', handle.workflowId, '--json'], env));
        assert.equal(transcript.code, 0, transcript.stderr);
        const lines = transcript.stdout.trim().split('\n').map((line) => JSON.parse(line) as { seq: number; role: string });
        assert.equal(lines.length, 2 + 2 * GOOD_CALLS, 'system, task and the three whole steps before the endpoint broke');
        assert.deepEqual(lines.map((line) => line.seq), lines.map((_, index) => index));
        await assertIntactTranscript(stack.store, handle.workflowId);
        console.log(
          `unreadable endpoint: session failed after ${attempts.length} attempts in ${seconds(tookMs)} ` +
            `(gaps ${gaps(attempts).map(seconds).join(', ')}); ${lines.length} stored rows readable; warning: ${state.warnings.at(-1)}`,
        );
      });
    });
  });

  describe('crashes, restarts and malformed input', { concurrency: 1 }, () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });
    after(async () => {
      await stack?.stop();
    });

    it('survives 10+ SIGKILLs of its worker process over a 110-step compacting session, calling the model once per stored reply', { timeout: 8 * MINUTE }, async () => {
      const STEPS = 110;
      const KILLS = 12;
      // A 32K window with outputs up to 40 KB: compactions (views, summaries) happen along the
      // way, so kills also land inside the prune and summarize activities.
      const WINDOW = 32_768;
      const seed = faultSeed();
      const random = seededRandom(seed);
      // 20–50 ms per answer, so a kill lands inside model calls as well as between them.
      const simulator = await startSimulator({ contextWindow: WINDOW, latencyMs: 20, faultPlan: (index) => ({ kind: 'latency', ms: (index * 7919) % 31 }) });
      const proxy = await startRecordingProxy(simulator.port);
      const env: WorkerEnv = {
        temporalAddress: stack.temporal.address,
        storeFile: stack.storeFile,
        workspaceRoot: stack.workspaceRoot,
        modelBaseURL: proxy.baseURL,
      };
      const started = Date.now();
      let worker: WorkerProcess = startWorkerProcess(env);
      const killedAtStep: number[] = [];
      try {
        const handle = await stack.sessions.start({
          task: `soak under SIGKILL [sim steps=${STEPS} output=2000-40000]`,
          model: 'agentd-sim',
          contextWindow: WINDOW,
        });
        const result = stack.sessions.result(handle.workflowId);
        const closed = settledFlag(result);
        let lastKillStep = 0;
        while (killedAtStep.length < KILLS && !closed()) {
          // Progress is read from the store: queries need a live worker, and one was just killed.
          const target = lastKillStep + randomInt(random, 3, 8);
          const reached = await eventually(
            async () => {
              const steps = await storedSteps(stack.store, handle.workflowId);
              return steps >= target || closed() ? steps : undefined;
            },
            `step ${target}`,
            120_000,
          );
          if (closed()) break;
          // A random moment inside the step: during the model call, the tool, or a workflow task.
          await new Promise((resolve) => setTimeout(resolve, randomInt(random, 0, 60)));
          const dead = await worker.stop('SIGKILL');
          assert.equal(dead.code, null, `worker ${killedAtStep.length + 1} died of the signal`);
          killedAtStep.push(reached);
          lastKillStep = reached;
          worker = startWorkerProcess(env);
        }
        const outcome: SessionResult = await result;
        const took = Date.now() - started;

        assert.ok(killedAtStep.length >= 10, `only ${killedAtStep.length} kills before the session ended`);
        assert.equal(outcome.outcome, 'finished');
        assert.equal(outcome.steps, STEPS + 1, `${STEPS} tool steps and the finish call`);
        const rows = await stack.store.list(handle.workflowId);
        const conversation = rows.filter((row) => row.meta.kind !== 'view' && row.meta.kind !== 'memory' && !(row.message.role === 'user' && isSummaryMessage(row.message.content)));
        assert.equal(conversation.length, 2 + 2 * (STEPS + 1), 'system, task, then one reply and one tool result per step');
        const state: SessionState = await stack.sessions.state(handle.workflowId);
        assert.ok(state.compaction.byStrategy.summary > 0, 'summaries were written along the way');
        await assertIntactTranscript(stack.store, handle.workflowId);
        assert.equal(totalRejected(simulator.stats()), 0, 'the strict endpoint refused nothing (no orphan, unanswered call or overflow)');

        // A kill inside write_file or run_command leaves a started marker: the retry records
        // "interrupted" instead of running the tool twice (by design; counted, not failed).
        const interrupted = rows.filter((row) => row.message.role === 'tool' && row.message.content.startsWith('error: interrupted')).length;
        const audit = auditModelCalls(rows, proxy.calls());
        assert.deepEqual(audit.unmatched, [], 'every stored reply was matched to the request that produced it');
        console.log(
          `SIGKILL soak (seed ${seed}): ${killedAtStep.length} kills survived (at steps ${killedAtStep.join(', ')}), ` +
            `${outcome.steps} steps, ${proxy.calls().length} model requests, ` +
            `${audit.retriedBeforeStore} re-sent before their reply was stored, ${audit.duplicates.length} duplicate calls, ` +
            `${interrupted} tool results recorded as interrupted, compactions ${JSON.stringify(state.compaction.byStrategy)}, ` +
            `${seconds(took)}`,
        );
        assert.deepEqual(audit.duplicates, [], 'no model call for a reply that was already stored');
      } finally {
        await worker.stop('SIGTERM');
        await proxy.stop();
        await simulator.stop();
      }
    });

    it('finishes a session across a restart of the Temporal dev server on the same SQLite file and port', { timeout: 3 * MINUTE }, async () => {
      const temporal = await startRestartableTemporal();
      const own = await startStackOn(temporal);
      const simulator = await startSimulator({ latencyMs: 50 });
      const env: WorkerEnv = {
        temporalAddress: own.temporal.address,
        storeFile: own.storeFile,
        workspaceRoot: own.workspaceRoot,
        modelBaseURL: simulator.baseURL,
      };
      // A worker process, as in production: the restart cuts its connection, not its process.
      // Down long enough that the activity in flight ends while there is no server to report to.
      const DOWN_MS = 3000;
      let worker = startWorkerProcess(env);
      const started = Date.now();
      try {
        const handle = await own.sessions.start({ task: 'outlive the server [sim steps=30]', model: 'agentd-sim' });
        const before = await eventually(async () => {
          const state = await own.sessions.state(handle.workflowId);
          return state.step >= 5 ? state : undefined;
        }, 'step 5', 60_000);
        const stepsAtStop = await storedSteps(own.store, handle.workflowId);
        const restart = await temporal.restart(DOWN_MS);
        const stepsAtStart = await storedSteps(own.store, handle.workflowId);

        const result = own.sessions.result(handle.workflowId);
        const closed = settledFlag(result);
        // The SDK's worker is expected to reconnect; should it give up, a fresh one takes over.
        let replaced = 0;
        while (!closed()) {
          if (!worker.alive()) {
            replaced += 1;
            worker = startWorkerProcess(env);
          }
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        const outcome: SessionResult = await result;
        assert.equal(outcome.outcome, 'finished');
        assert.equal(outcome.steps, 31);
        assert.ok(outcome.steps > before.step);
        const rows = await own.store.list(handle.workflowId);
        assert.equal(rows.length, 2 + 2 * 31);
        await assertIntactTranscript(own.store, handle.workflowId);
        assert.equal(totalRejected(simulator.stats()), 0);
        console.log(
          `dev server restart at step ${before.step} (down ${seconds(DOWN_MS)}; stop ${seconds(restart.stoppedInMs)}, start ${seconds(restart.startedInMs)}, ` +
            `${stepsAtStop} → ${stepsAtStart} replies stored across the restart): worker process ${replaced === 0 ? 'reconnected' : `exited and was replaced ${replaced} time(s)`}, ` +
            `${outcome.steps} steps, ${seconds(Date.now() - started)}`,
        );
      } finally {
        await worker.stop('SIGTERM');
        await simulator.stop();
        await own.stop();
      }
    });

    it('retries a model that answers malformed JSON three times, and completes', { timeout: 3 * MINUTE }, async () => {
      const plan = faultsAt({ 0: MALFORMED, 1: MALFORMED, 2: MALFORMED });
      await withRecordedWorker(stack, { faultPlan: plan }, async (simulator, proxy) => {
        const started = Date.now();
        const handle = await stack.sessions.start({ task: 'survive garbage [sim steps=4]', model: 'agentd-sim' });
        const outcome: SessionResult = await stack.sessions.result(handle.workflowId);
        assert.equal(outcome.outcome, 'finished');
        assert.equal(outcome.steps, 5);
        const stats = simulator.stats();
        assert.equal(stats.rejected.injected, 3, 'the three malformed answers were sent');
        assert.equal(stats.requests, 5 + 3, 'one retry per malformed answer, nothing more');
        const calls = proxy.calls();
        assert.equal(new Set(calls.slice(0, 4).map((call) => call.contextKey)).size, 1, 'the retries resent the same context');
        await assertIntactTranscript(stack.store, handle.workflowId);
        console.log(`malformed x3: completed in ${seconds(Date.now() - started)}; retry gaps ${gaps(calls.slice(0, 4)).map(seconds).join(', ')}`);
      });
    });

    it('waits as long as a 429 Retry-After says before asking again, and completes', { timeout: 3 * MINUTE }, async () => {
      // 5 s rather than 2: the retry policy's own first interval is 2 s, so only a longer
      // Retry-After shows whether the header is honoured.
      const RETRY_AFTER_SECONDS = 5;
      const plan = faultsAt({ 1: { kind: 'status', status: 429, retryAfterSeconds: RETRY_AFTER_SECONDS } });
      await withRecordedWorker(stack, { faultPlan: plan }, async (simulator, proxy) => {
        const handle = await stack.sessions.start({ task: 'rate limited [sim steps=3]', model: 'agentd-sim' });
        const outcome: SessionResult = await stack.sessions.result(handle.workflowId);
        assert.equal(outcome.outcome, 'finished');
        assert.equal(simulator.stats().rejected.injected, 1);
        const [, limited, retried] = proxy.calls();
        assert.ok(limited && retried);
        assert.equal(limited.status, 429);
        assert.equal(retried.contextKey, limited.contextKey, 'the next request is the retry of the limited one');
        const waited = retried.at - limited.at;
        console.log(`429 Retry-After ${RETRY_AFTER_SECONDS} s: next attempt ${seconds(waited)} later`);
        assert.ok(waited >= RETRY_AFTER_SECONDS * 1000 - 250, `retried after ${waited} ms, before Retry-After`);
        assert.ok(waited < RETRY_AFTER_SECONDS * 1000 + 5000, `retried after ${waited} ms: the header was not what decided`);
        await assertIntactTranscript(stack.store, handle.workflowId);
      });
    });

    it('goes on after a compactNow update with bogus arguments and malformed message signals', { timeout: 3 * MINUTE }, async () => {
      await withRecordedWorker(stack, { latencyMs: 150 }, async () => {
        const handle = await stack.sessions.start({ task: 'bad callers [sim steps=8]', model: 'agentd-sim' });
        await eventually(async () => {
          const state = await stack.sessions.state(handle.workflowId);
          return state.step >= 2 ? state : undefined;
        }, 'step 2');
        const answer: unknown = await handle.executeUpdate('compactNow', { args: [{ bogus: 1 }] });
        assert.equal(typeof (answer as { compacted?: unknown }).compacted, 'boolean', `compactNow answered ${JSON.stringify(answer)}`);
        for (const payload of [{ bogus: 1 }, 42, { text: '   ' }, { text: 'hi', extra: true }]) {
          await handle.signal('message', payload);
        }
        await handle.signal('compact', { bogus: 1 });

        const outcome: SessionResult = await stack.sessions.result(handle.workflowId);
        assert.equal(outcome.outcome, 'finished');
        assert.equal(outcome.turns, 1, 'no malformed message opened a turn');
        const state: SessionState = await stack.sessions.state(handle.workflowId);
        const ignored = state.warnings.filter((warning) => /malformed message signal/.test(warning));
        assert.equal(ignored.length, 4, state.warnings.join('\n'));
        await assertIntactTranscript(stack.store, handle.workflowId);
        console.log(`bad callers: compactNow({bogus}) → ${JSON.stringify(answer)}; warnings: ${ignored[0]}`);
      });
    });

    it('kills a command that hangs past toolTimeoutSeconds and goes on', { timeout: 3 * MINUTE }, async () => {
      // A scripted command that never ends, and notes its pid so the test can check it was killed.
      const hang = JSON.stringify({ command: 'echo $$ > hung-seq.pid; exec sleep 300' });
      const simulator = await startSimulator({});
      let worker: WorkerProcess | undefined;
      try {
        worker = startWorkerProcess({
          temporalAddress: stack.temporal.address,
          storeFile: stack.storeFile,
          workspaceRoot: stack.workspaceRoot,
          modelBaseURL: simulator.baseURL,
          // Unsandboxed on purpose: the pid it notes must be a host pid. sandbox.test.ts covers the
          // hung command under bwrap.
          extra: { AGENTD_UNSANDBOXED_COMMANDS: '1' },
        });
        const handle = await stack.sessions.start({
          task: `run a hanging command [sim steps=4]\n[sim call run_command ${hang}]`,
          model: 'agentd-sim',
          toolTimeoutSeconds: 2,
        });
        const outcome: SessionResult = await stack.sessions.result(handle.workflowId);
        assert.equal(outcome.outcome, 'finished');
        assert.equal(outcome.steps, 5);

        const rows = await stack.store.list(handle.workflowId);
        const killed = rows.find((row) => row.message.role === 'tool' && /killed after 2s \(timeout\)/.test(row.message.content));
        assert.ok(killed, 'the run_command result says the command was killed at its timeout');
        const call = rows.find((row) => row.seq === killed.seq - 1);
        assert.ok(call);
        const tookMs = Date.parse(killed.createdAt) - Date.parse(call.createdAt);
        assert.ok(tookMs >= 2000 && tookMs < 15_000, `the tool took ${tookMs} ms for a 2 s timeout`);
        const pidFile = join(stack.workspaceRoot, handle.workflowId, 'hung-seq.pid');
        assert.ok(existsSync(pidFile), 'the hanging command did run');
        const pid = Number(readFileSync(pidFile, 'utf8'));
        assert.equal(isRunning(pid), false, `the hung process ${pid} was killed with its group`);
        await assertIntactTranscript(stack.store, handle.workflowId);
        console.log(`hung tool: killed after ${seconds(tookMs)} (toolTimeoutSeconds 2), session finished in ${outcome.steps} steps`);
      } finally {
        await worker?.stop('SIGTERM');
        await simulator.stop();
      }
    });
  });
});

/** Milliseconds between consecutive calls. */
function gaps(calls: ReadonlyArray<{ readonly at: number }>): number[] {
  return calls.slice(1).map((call, index) => call.at - (calls[index]?.at ?? call.at));
}

/** True while `pid` runs; a zombie (killed, not yet reaped by whoever inherited it) does not. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true; // no procfs: the signal check is all there is
  try {
    const state = readFileSync(stat, 'utf8').split(') ')[1]?.[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false; // gone between the two checks
  }
}
