/**
 * Faults of the transcript store under running sessions: PostgreSQL restarted under two worker
 * processes (briefly, and for longer than the shorter retry policies last), and a SQLite file held
 * locked by another process past busy_timeout. Real parts: a dev server, worker processes, a
 * PostgreSQL server of the test's own (so it can be stopped; never the shared one), a SQLite file,
 * HTTP to the simulator through a recording proxy.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionClient } from '../../src/client/sessionClient';
import type { SessionResult } from '../../src/session/state';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { PostgresTranscriptStore } from '../../src/store/postgresStore';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import type { TranscriptStore } from '../../src/store/transcriptStore';
import { ownPostgresBinaries, startOwnPostgres, type OwnPostgres } from '../helpers/ownPostgres';
import { localActivitiesOf } from '../../harness/localActivities';
import { startRecordingProxy, type RecordingProxy } from '../../harness/recordingProxy';
import { eventually, startServerStack, type ServerStack } from '../../harness/stack';
import { auditModelCalls, pairingProblems, seqGaps } from '../../harness/transcriptChecks';
import { startWorkerProcess, type WorkerEnv, type WorkerProcess } from '../../harness/workerProcess';

const MINUTE = 60_000;
const postgresBin = ownPostgresBinaries('the PostgreSQL restart tests');

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function tagOf(label: string, index: number): string {
  return `${label} #${String(index).padStart(2, '0')}:`;
}

/** Replies stored over all sessions (rows past system and task, two per step). */
async function repliesStored(store: TranscriptStore, ids: readonly string[]): Promise<number> {
  let replies = 0;
  for (const id of ids) replies += (await store.list(id)).filter((row) => row.message.role === 'assistant').length;
  return replies;
}

/** Starts `count` tally sessions of `stepsOf(index)` tool steps; results are read later, rejections included. */
async function startTallySessions(sessions: SessionClient, label: string, count: number, stepsOf: (index: number) => number) {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const task = `${tagOf(label, index)} tally the numbers [sim steps=${stepsOf(index)} output=200-600]`;
    ids.push((await sessions.start({ task, model: 'agentd-sim' })).workflowId);
  }
  const results = ids.map((id) => sessions.result(id));
  for (const result of results) result.catch(() => undefined);
  return { ids, results, totalSteps: ids.reduce((sum, _, index) => sum + stepsOf(index) + 1, 0) };
}

/** Waits until a quarter of all steps are stored, so the fault lands mid-run; returns the replies stored. */
function quarterStored(store: TranscriptStore, ids: readonly string[], totalSteps: number): Promise<number> {
  return eventually(
    async () => {
      const replies = await repliesStored(store, ids);
      return replies >= totalSteps / 4 ? replies : undefined;
    },
    'a quarter of all steps',
    2 * MINUTE,
  );
}

/**
 * Another process (plain better-sqlite3) takes the write lock of `file` with BEGIN EXCLUSIVE and keeps
 * it for `holdMs`; resolves once the lock is held, with a promise of its release.
 */
async function holdExclusiveLock(file: string, holdMs: number): Promise<{ released: Promise<{ heldMs: number }> }> {
  const script = `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN EXCLUSIVE');
    const at = Date.now();
    console.log('locked');
    setTimeout(() => { db.exec('COMMIT'); db.close(); console.log('released ' + (Date.now() - at)); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const released = new Promise<{ heldMs: number }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const held = /released (\d+)/.exec(out);
      if (code === 0 && held) resolve({ heldMs: Number(held[1]) });
      else reject(new Error(`the lock holder exited ${code}: ${out}`));
    });
  });
  released.catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('locked')) resolve();
    });
    released.catch(reject);
  });
  return { released };
}

/** One retried activity, as its last ActivityTaskStarted event tells it: attempt and the failure before it. */
interface Retried {
  readonly activity: string;
  readonly attempt: number;
  readonly lastFailure: string;
}

/**
 * Activities of the session that needed more than one attempt, every activity that failed for good,
 * and the longest any activity took from being scheduled to completing: a store write waits for the
 * database within one attempt, heartbeating, so an outage can be outlasted without a retry.
 */
async function activityRetries(client: Client, sessionId: string): Promise<{ retried: Retried[]; failed: string[]; longestMs: number }> {
  const history = await client.workflow.getHandle(sessionId).fetchHistory();
  const typeOf = new Map<string, string>();
  const scheduledAt = new Map<string, number>();
  const retried: Retried[] = [];
  const failed: string[] = [];
  let longestMs = 0;
  for (const event of history.events ?? []) {
    const id = String(event.eventId);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      typeOf.set(id, scheduled.activityType?.name ?? '?');
      scheduledAt.set(id, tsToMs(event.eventTime));
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const since = completed ? scheduledAt.get(String(completed.scheduledEventId)) : undefined;
    if (since !== undefined) longestMs = Math.max(longestMs, tsToMs(event.eventTime) - since);
    const started = event.activityTaskStartedEventAttributes;
    if (started && (started.attempt ?? 1) > 1) {
      retried.push({
        activity: typeOf.get(String(started.scheduledEventId)) ?? '?',
        attempt: started.attempt ?? 1,
        lastFailure: started.lastFailure?.message ?? '',
      });
    }
    const failure = event.activityTaskFailedEventAttributes;
    if (failure) {
      const info = failure.failure?.applicationFailureInfo;
      failed.push(
        `${typeOf.get(String(failure.scheduledEventId)) ?? '?'}: ${failure.failure?.message ?? ''}` +
          ` (${info?.type ?? 'no type'}, ${info?.nonRetryable ? 'non-retryable' : `retry state ${failure.retryState}`})`,
      );
    }
  }
  // Quick reads run as local activities: only their markers say how often the worker tried one (the outage may meet only them).
  for (const local of localActivitiesOf(history)) {
    if (local.attempt > 1) retried.push({ activity: `${local.activityType} (local)`, attempt: local.attempt, lastFailure: local.failureType ?? '' });
  }
  return { retried, failed, longestMs };
}

/** What the transcripts of a set of sessions say: lost or repeated work, by kind. */
async function auditSessions(store: TranscriptStore, proxy: RecordingProxy, label: string, ids: readonly string[], finished: ReadonlySet<string>) {
  let gaps = 0;
  let unpaired = 0;
  let duplicates = 0;
  let resent = 0;
  let interrupted = 0;
  for (const [index, id] of ids.entries()) {
    const rows = await store.list(id);
    gaps += seqGaps(rows).length;
    if (rows[0]?.seq !== 0) gaps += 1;
    // A session that failed may end on a call it never answered; every other pairing rule holds.
    const problems = pairingProblems(rows).filter((problem) => finished.has(id) || !problem.includes('before seq Infinity'));
    unpaired += problems.length;
    const audit = auditModelCalls(rows, proxy.calls().filter((call) => call.task.includes(tagOf(label, index))));
    duplicates += audit.duplicates.length;
    resent += audit.retriedBeforeStore;
    interrupted += rows.filter((row) => row.message.role === 'tool' && row.message.content.startsWith('error: interrupted')).length;
  }
  return { gaps, unpaired, duplicates, resent, interrupted };
}

/** A rejected result's cause, as the client's WorkflowFailedError carries it. */
function failureText(reason: unknown): string {
  const cause = reason instanceof Error ? reason.cause : undefined;
  return cause instanceof Error ? cause.message : String(reason);
}

/** Most common lines first, e.g. `connect ECONNREFUSED … ×12`. */
function tally(lines: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([line, count]) => `${line} ×${count}`)
    .join('; ');
}

/** The failure messages with their variable parts (ports, pids) kept, but trimmed to one short line. */
function shortFailure(message: string): string {
  return message.split('\n')[0]!.slice(0, 120);
}

describe('faults of the transcript store', { concurrency: 1 }, () => {
  let stack: ServerStack;
  before(async () => {
    stack = await startServerStack();
  });
  after(async () => {
    await stack?.stop();
  });

  /**
   * Two workers on our own PostgreSQL; `count` sessions of 10 to 13 steps; once a quarter of the
   * steps is stored, PostgreSQL stops for `downMs` and starts again on the same port and data dir.
   */
  async function restartUnderSessions(label: string, count: number, downMs: number) {
    const postgres: OwnPostgres = await startOwnPostgres(postgresBin!);
    let simulator: RunningSimulator | undefined;
    let proxy: RecordingProxy | undefined;
    let store: PostgresTranscriptStore | undefined;
    const workers: WorkerProcess[] = [];
    try {
      simulator = await startSimulator({ latencyMs: 40 });
      proxy = await startRecordingProxy(simulator.port);
      const env: WorkerEnv = {
        temporalAddress: stack.temporal.address,
        storeFile: postgres.url,
        workspaceRoot: join(stack.dir, `${label}-workspaces`),
        modelBaseURL: proxy.baseURL,
      };
      workers.push(startWorkerProcess(env), startWorkerProcess(env));
      // The test's own pool lives through the restart too, and must recover like the workers'.
      store = await eventually(() => PostgresTranscriptStore.open({ url: postgres.url, onIdleError: () => undefined }), 'the store', MINUTE);
      const openStore = store;
      const stepsOf = (index: number) => 10 + (index % 4);
      const { ids, results, totalSteps } = await startTallySessions(stack.sessions, label, count, stepsOf);
      const atStop = await quarterStored(openStore, ids, totalSteps);
      const stoppedAt = Date.now();
      await postgres.stop();
      await sleep(downMs);
      await postgres.start();
      const down = Date.now() - stoppedAt;
      const atStart = await repliesStored(openStore, ids);

      const outcomes = await Promise.allSettled(results);
      const finished = new Set(
        ids.filter((_, index) => {
          const outcome = outcomes[index]!;
          return outcome.status === 'fulfilled' && outcome.value.outcome === 'finished';
        }),
      );
      const notFinished = ids
        .map((id, index) => ({ id, outcome: outcomes[index]! }))
        .filter(({ id }) => !finished.has(id))
        .map(({ id, outcome }) =>
          `${id}: ${outcome.status === 'rejected' ? shortFailure(failureText(outcome.reason)) : (outcome.value as SessionResult).outcome}`,
        );
      const retried: Retried[] = [];
      const failed: string[] = [];
      let longestActivityMs = 0;
      for (const id of ids) {
        const found = await activityRetries(stack.client, id);
        retried.push(...found.retried);
        failed.push(...found.failed);
        longestActivityMs = Math.max(longestActivityMs, found.longestMs);
      }
      const audit = await auditSessions(openStore, proxy, label, ids, finished);
      const workersAlive = workers.filter((worker) => worker.alive()).length;
      for (const [index, id] of ids.entries()) {
        if (!finished.has(id)) continue;
        const rows = await openStore.list(id);
        assert.equal(rows.length, 2 + 2 * (stepsOf(index) + 1), `${id}: system, task and two rows per step`);
      }
      const outputs = await Promise.all(workers.map((worker) => worker.stop('SIGTERM')));
      const idleLost = outputs.reduce((sum, output) => sum + output.stderr.split('idle PostgreSQL connection lost').length - 1, 0);
      return { ids, finished, notFinished, retried, failed, longestActivityMs, audit, workersAlive, idleLost, down, atStop, atStart, totalSteps, outputs };
    } finally {
      for (const worker of workers) await worker.stop('SIGKILL');
      await store?.close().catch(() => undefined);
      await proxy?.stop();
      await simulator?.stop();
      await postgres.destroy();
    }
  }

  it(
    'PostgreSQL restarted mid-session: workers reconnect, activities retry, every session finishes intact',
    { skip: postgresBin ? false : 'no PostgreSQL server binaries', timeout: 3 * MINUTE },
    async () => {
      const started = Date.now();
      const DOWN_MS = 4_000;
      const run = await restartUnderSessions('pg-restart', 6, DOWN_MS);
      const lost = run.audit.gaps + run.audit.unpaired + run.audit.duplicates;
      console.log(
        `PostgreSQL restart (down ${seconds(run.down)} at ${run.atStop}/${run.totalSteps} steps, ${run.atStart} stored at restart): ` +
          `${run.finished.size}/${run.ids.length} sessions finished, ${run.workersAlive}/2 workers still up, ` +
          `${run.idleLost} idle connections reported lost; ${run.retried.length} activity attempts retried ` +
          `(${tally(run.retried.map((retry) => `${retry.activity} after "${shortFailure(retry.lastFailure)}"`))}); ` +
          `longest activity ${seconds(run.longestActivityMs)}; failed for good ${run.failed.length}; lost ${lost} (seq gaps ${run.audit.gaps}, unanswered or stray tool results ${run.audit.unpaired}, ` +
          `duplicate model calls ${run.audit.duplicates}); ${run.audit.resent} model requests re-sent before their reply was stored; ` +
          `${seconds(Date.now() - started)}`,
      );
      assert.deepEqual(run.notFinished, [], 'every session finished');
      assert.equal(run.workersAlive, 2, 'both workers lived through the restart (their pools recovered)');
      // Met by a retry, or by a store write that waited through the restart in one attempt: otherwise the restart proved nothing.
      assert.ok(
        run.retried.length > 0 || run.longestActivityMs >= run.down * 0.8,
        `some activity met the outage (retried ${run.retried.length}, longest ${seconds(run.longestActivityMs)} of ${seconds(run.down)} down)`,
      );
      assert.deepEqual(run.failed, [], 'no activity failed for good');
      assert.equal(lost, 0, 'nothing lost, nothing repeated');
    },
  );
  it(
    'PostgreSQL down longer than the tool and compaction retries last: sessions wait and finish once it is back',
    { skip: postgresBin ? false : 'no PostgreSQL server binaries', timeout: 3 * MINUTE },
    async () => {
      const started = Date.now();
      // Five attempts of an activity, 1+2+4+8 s apart, take 15 s: the outage outlasts them.
      const DOWN_MS = 35_000;
      const run = await restartUnderSessions('pg-long', 6, DOWN_MS);
      const lost = run.audit.gaps + run.audit.unpaired + run.audit.duplicates;
      console.log(
        `PostgreSQL down ${seconds(run.down)} at ${run.atStop}/${run.totalSteps} steps: ` +
          `${run.finished.size}/${run.ids.length} sessions finished${run.notFinished.length ? ` (not: ${run.notFinished.join(' | ')})` : ''}, ` +
          `${run.workersAlive}/2 workers still up; ${run.retried.length} activity attempts retried ` +
          `(${tally(run.retried.map((retry) => `${retry.activity} at attempt ${retry.attempt}`))}); longest activity ${seconds(run.longestActivityMs)}; ` +
          `failed for good: ${run.failed.length ? tally(run.failed.map(shortFailure)) : 'none'}; lost ${lost} ` +
          `(seq gaps ${run.audit.gaps}, unanswered or stray tool results ${run.audit.unpaired}, duplicate model calls ${run.audit.duplicates}); ` +
          `${run.audit.interrupted} tool results recorded as interrupted; ${seconds(Date.now() - started)}`,
      );
      assert.equal(run.workersAlive, 2, 'both workers lived through the outage');
      assert.equal(lost, 0, 'nothing lost, nothing repeated, in finished and failed sessions alike');
      // Five attempts, 1+2+4+8 s apart, or one patient attempt that waited for the database the whole time.
      assert.ok(
        run.retried.some((retry) => retry.attempt >= 5) || run.longestActivityMs >= run.down * 0.8,
        `some activity outlasted the outage (attempts up to ${Math.max(1, ...run.retried.map((retry) => retry.attempt))}, longest ${seconds(run.longestActivityMs)} of ${seconds(run.down)} down)`,
      );
      assert.deepEqual(run.failed, [], 'no activity gave up on the outage');
      assert.deepEqual(run.notFinished, [], 'every session waited for the store and finished');
    },
  );
  it('SQLite file locked by another process past busy_timeout: activities wait or retry on SQLITE_BUSY, sessions finish intact', { timeout: 3 * MINUTE }, async () => {
    const started = Date.now();
    const HOLD_MS = 15_000;
    const label = 'sqlite-lock';
    const storeFile = join(stack.dir, 'locked.db');
    let simulator: RunningSimulator | undefined;
    let proxy: RecordingProxy | undefined;
    let worker: WorkerProcess | undefined;
    // Opened first: it creates the schema, and reads go on in WAL mode while another process writes.
    const store = new SqliteTranscriptStore(storeFile);
    try {
      simulator = await startSimulator({ latencyMs: 40 });
      proxy = await startRecordingProxy(simulator.port);
      worker = startWorkerProcess({
        temporalAddress: stack.temporal.address,
        storeFile,
        workspaceRoot: join(stack.dir, `${label}-workspaces`),
        modelBaseURL: proxy.baseURL,
      });
      const stepsOf = (index: number) => 10 + index;
      const { ids, results, totalSteps } = await startTallySessions(stack.sessions, label, 3, stepsOf);
      const atLock = await quarterStored(store, ids, totalSteps);
      const lock = await holdExclusiveLock(storeFile, HOLD_MS);
      const duringLock = await repliesStored(store, ids);
      const released = await lock.released;
      const atRelease = await repliesStored(store, ids);

      const outcomes = await Promise.allSettled(results);
      const notFinished = outcomes
        .map((outcome, index) => ({ outcome, id: ids[index]! }))
        .filter(({ outcome }) => outcome.status !== 'fulfilled' || outcome.value.outcome !== 'finished')
        .map(({ id, outcome }) => `${id}: ${outcome.status === 'rejected' ? shortFailure(failureText(outcome.reason)) : outcome.value.outcome}`);
      const finished = new Set(ids.filter((_, index) => outcomes[index]!.status === 'fulfilled'));
      const retried: Retried[] = [];
      const failed: string[] = [];
      for (const id of ids) {
        const found = await activityRetries(stack.client, id);
        retried.push(...found.retried);
        failed.push(...found.failed);
      }
      const audit = await auditSessions(store, proxy, label, ids, finished);
      for (const [index, id] of ids.entries()) {
        assert.equal((await store.list(id)).length, 2 + 2 * (stepsOf(index) + 1), `${id}: system, task and two rows per step`);
      }
      const output = await worker.stop('SIGTERM');
      const logged = `${output.stdout}${output.stderr}`.split('database is locked').length - 1;
      const lost = audit.gaps + audit.unpaired + audit.duplicates;
      console.log(
        `SQLite locked (BEGIN EXCLUSIVE by another process for ${seconds(released.heldMs)} at ${atLock}/${totalSteps} steps; ` +
          `${duringLock} → ${atRelease} replies stored while held): ${finished.size}/${ids.length} sessions finished; ` +
          `${retried.length} activity attempts retried (${tally(retried.map((retry) => `${retry.activity} after "${shortFailure(retry.lastFailure)}"`))}); ` +
          `"database is locked" in the worker's log ${logged} times; failed for good ${failed.length}; lost ${lost} ` +
          `(seq gaps ${audit.gaps}, unanswered or stray tool results ${audit.unpaired}, duplicate model calls ${audit.duplicates}); ` +
          `${audit.resent} model requests re-sent before their reply was stored, ${audit.interrupted} tool results recorded as interrupted; ` +
          `${seconds(Date.now() - started)}`,
      );
      assert.deepEqual(notFinished, [], 'every session finished');
      // A result in hand waits for the store inside its attempt (and logs it); other reads and writes fail the attempt.
      assert.ok(retried.length + logged > 0, 'some activity met the lock, retried or waiting in place: otherwise the lock proved nothing');
      assert.ok(logged + retried.filter((retry) => /database is locked/.test(retry.lastFailure)).length > 0, 'the cause is named: database is locked');
      // better-sqlite3 waits out busy_timeout synchronously, so a model request in flight may time out meanwhile.
      assert.ok(
        retried.every((retry) => /database is locked|model endpoint unreachable/.test(retry.lastFailure)),
        `every retry names the lock or the stalled model request: ${tally(retried.map((retry) => retry.lastFailure))}`,
      );
      assert.deepEqual(failed, [], 'no activity failed for good');
      assert.equal(lost, 0, 'nothing lost, nothing repeated');
    } finally {
      await worker?.stop('SIGKILL');
      await store.close();
      await proxy?.stop();
      await simulator?.stop();
    }
  });
});
