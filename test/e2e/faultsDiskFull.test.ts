/**
 * Faults beyond a clean kill: the disk fills. The transcript store's file, or the session's
 * workspace, sits on a small filesystem of its own (a size-limited tmpfs) that fills up in the middle
 * of a session and is freed again. Real parts: a dev server, a worker process, the SQLite store, HTTP
 * to the simulator. Where this machine cannot mount one, each case says so and skips (fails under CI=true).
 */
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SessionResult } from '../../src/session/state';
import { startSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import { SqliteTranscriptStore } from '../../src/store/sqliteStore';
import type { TranscriptStore } from '../../src/store/transcriptStore';
import { mountSmallDisk, type SmallDisk } from '../helpers/smallDisk';
import { eventually, type Stack } from '../../harness/stack';
import { pairingProblems, seqGaps, toolResults } from '../../harness/transcriptChecks';
import { startWorkerProcess, type WorkerProcess } from '../../harness/workerProcess';
import { suiteStack } from '../helpers/suiteStack';

const MINUTE = 60_000;
/** What a full disk looks like in an error: the errno, SQLite's code, or its message. */
const DISK_FULL = /ENOSPC|EFBIG|SQLITE_FULL|disk is full|No space left on device/i;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Seqs 0..n-1, every row parses (list() parses each body), well-paired tool calls. */
async function assertIntactTranscript(store: TranscriptStore, sessionId: string): Promise<number> {
  const rows = await store.list(sessionId);
  assert.equal(rows[0]?.seq, 0, 'seqs start at 0');
  assert.deepEqual(seqGaps(rows), [], 'no seq is missing');
  assert.deepEqual(pairingProblems(rows), [], 'every tool call is answered, once');
  return rows.length;
}

/** SQLite's own check of the file: pages, indexes and the FTS index's structure. */
function integrityOf(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((row) => row.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

interface PendingFailure {
  readonly activity: string;
  readonly attempt: number;
  /** Where the server has the cause: the last attempt's failure, or the details of the last heartbeat. */
  readonly source: 'failure' | 'heartbeat';
  readonly message: string;
}

/** The session's pending activities that name a cause, from the server (as `temporal workflow describe` shows them). */
async function pendingFailures(stack: Stack, workflowId: string): Promise<PendingFailure[]> {
  const description = await stack.client.workflow.getHandle(workflowId).describe();
  const found: PendingFailure[] = [];
  for (const pending of description.raw.pendingActivities ?? []) {
    const activity = pending.activityType?.name ?? '?';
    const attempt = pending.attempt ?? 0;
    const failure = pending.lastFailure;
    if (failure?.message) {
      const type = failure.applicationFailureInfo?.type;
      found.push({ activity, attempt, source: 'failure', message: `${type ? `[${type}] ` : ''}${failure.message}` });
    }
    for (const payload of pending.heartbeatDetails?.payloads ?? []) {
      if (payload.data) found.push({ activity, attempt, source: 'heartbeat', message: Buffer.from(payload.data).toString('utf8') });
    }
  }
  return found;
}

async function storedReplies(store: TranscriptStore, sessionId: string): Promise<number> {
  return (await store.list(sessionId)).filter((row) => row.message.role === 'assistant').length;
}

describe('the disk fills', { concurrency: 1 }, () => {
  const stack = suiteStack();

  it('the store: its writes fail with SQLITE_FULL and are retried; once space is back the session completes intact', { timeout: 3 * MINUTE }, async (t) => {
    const disk = mountSmallDisk(32 * 1024 * 1024);
    if ('unavailable' in disk) {
      console.log(`disk full (store): NOT INJECTED — ${disk.unavailable}; a file-size limit (prlimit --fsize) would be the fallback`);
      t.skip(disk.unavailable);
      return;
    }
    const STEPS = 30;
    const FILL_AT_STEP = 6;
    /** How long the store stays full once the cause is seen. */
    const HOLD_FULL_MS = 8000;
    const storeFile = join(disk.dir, 'transcripts.db');
    const store = new SqliteTranscriptStore(storeFile);
    const simulator = await startSimulator({ latencyMs: 30 });
    let worker: WorkerProcess | undefined;
    try {
      worker = startWorkerProcess({
        temporalAddress: stack.temporal.address,
        storeFile,
        workspaceRoot: stack.workspaceRoot,
        modelBaseURL: simulator.baseURL,
        extra: { AGENTD_UNSANDBOXED_COMMANDS: '1' },
      });
      const started = Date.now();
      const handle = await stack.sessions.start({
        task: `keep writing while the store's disk fills [sim steps=${STEPS} output=3000-12000]`,
        model: 'agentd-sim',
      });
      await eventually(
        async () => ((await storedReplies(store, handle.workflowId)) >= FILL_AT_STEP ? true : undefined),
        `step ${FILL_AT_STEP}`,
        60_000,
      );
      // Empty the WAL into the database first, so the next write needs new space at once (a WAL
      // file keeps its size after a checkpoint and would let SQLite reuse it for a while).
      const side = new Database(storeFile);
      side.pragma('wal_checkpoint(TRUNCATE)');
      side.close();
      const filled = disk.fill();
      const repliesAtFill = await storedReplies(store, handle.workflowId);
      const filledAt = Date.now();

      // The store refuses; the activity that tried waits for space (heartbeating the cause) or fails
      // retryably and is attempted again: either way the server names the cause.
      const failing = await eventually(
        async () => (await pendingFailures(stack, handle.workflowId)).find((failure) => DISK_FULL.test(failure.message)),
        'an activity naming the full store',
        60_000,
      );
      await new Promise((resolve) => setTimeout(resolve, HOLD_FULL_MS));
      const repliesWhileFull = await storedReplies(store, handle.workflowId);
      const description = await handle.describe();
      assert.equal(description.status.name, 'RUNNING', 'the session waits for space instead of failing');
      assert.ok(worker.alive(), 'the worker survives the full disk');
      assert.ok(repliesWhileFull <= repliesAtFill + 1, `no progress while the store is full (${repliesAtFill} → ${repliesWhileFull})`);
      const fullForMs = Date.now() - filledAt;

      disk.free();
      const outcome: SessionResult = await stack.sessions.result(handle.workflowId);
      const tookMs = Date.now() - started;
      assert.equal(outcome.outcome, 'finished');
      assert.equal(outcome.steps, STEPS + 1, `${STEPS} tool steps and the finish call: nothing lost`);
      const rowCount = await assertIntactTranscript(store, handle.workflowId);
      assert.equal(rowCount, 2 + 2 * (STEPS + 1), 'system, task, then a reply and a tool result per step');
      const rows = await store.list(handle.workflowId);
      const interrupted = rows.filter((row) => row.message.role === 'tool' && row.message.content.startsWith('error: interrupted')).length;
      assert.equal(totalRejected(simulator.stats()), 0, 'the strict endpoint refused nothing');
      const worked = await worker.stop('SIGTERM');
      worker = undefined;
      await store.close();
      const integrity = integrityOf(storeFile);
      assert.equal(integrity, 'ok', 'SQLite integrity_check');
      const logged = worked.stderr.split('\n').find((line) => DISK_FULL.test(line));
      assert.ok(logged, 'the worker log names the full store');
      console.log(
        `disk full (store): filled a 32 MiB tmpfs under the SQLite file (${filled} filler bytes) at step ${repliesAtFill}; ` +
          `${failing.activity} (attempt ${failing.attempt}) named it in its ${failing.source}: ${failing.message}; freed after ${seconds(fullForMs)} ` +
          `(session RUNNING, worker alive, ${repliesWhileFull - repliesAtFill} replies stored meanwhile); space freed → finished ${outcome.steps} steps, ` +
          `${rowCount} rows, no seq gap, all calls answered, integrity_check ${integrity}, ${interrupted} tool results "interrupted", ` +
          `${simulator.stats().requests - outcome.steps} model requests re-sent; worker log: "${logged.trim().slice(0, 200)}"; ${seconds(tookMs)}`,
      );
    } finally {
      await worker?.stop('SIGKILL');
      await simulator.stop();
      await store.close().catch(() => undefined);
      disk.unmount();
    }
  });

  it('the store stays full for 30 s while a command runs: its result waits for space instead of being lost or failing the session', { timeout: 3 * MINUTE }, async (t) => {
    const disk = mountSmallDisk(32 * 1024 * 1024);
    if ('unavailable' in disk) {
      console.log(`disk full (store, long): NOT INJECTED — ${disk.unavailable}`);
      t.skip(disk.unavailable);
      return;
    }
    // Longer than runTool's five attempts take to run out (1 + 2 + 4 + 8 s of backoff).
    const FULL_MS = 30_000;
    const storeFile = join(disk.dir, 'transcripts.db');
    const store = new SqliteTranscriptStore(storeFile);
    const simulator = await startSimulator({});
    let worker: WorkerProcess | undefined;
    try {
      worker = startWorkerProcess({
        temporalAddress: stack.temporal.address,
        storeFile,
        workspaceRoot: stack.workspaceRoot,
        modelBaseURL: simulator.baseURL,
        extra: { AGENTD_UNSANDBOXED_COMMANDS: '1' },
      });
      const started = Date.now();
      const command = 'touch started.flag; sleep 3; echo "slept well"';
      const handle = await stack.sessions.start({
        task: `a command that ends while the store is full [sim steps=3]\n[sim call run_command ${JSON.stringify({ command })}]`,
        model: 'agentd-sim',
      });
      const flag = join(stack.workspaceRoot, handle.workflowId, 'started.flag');
      await eventually(async () => (existsSync(flag) ? true : undefined), 'the command to start', 60_000);
      const side = new Database(storeFile);
      side.pragma('wal_checkpoint(TRUNCATE)');
      side.close();
      disk.fill();
      const filledAt = Date.now();
      let seen: PendingFailure | undefined;
      let status = 'RUNNING';
      while (Date.now() - filledAt < FULL_MS && status === 'RUNNING') {
        const pending = await pendingFailures(stack, handle.workflowId).catch(() => []);
        seen = pending.find((failure) => DISK_FULL.test(failure.message)) ?? seen;
        status = (await handle.describe()).status.name;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      assert.equal(status, 'RUNNING', `the session is still waiting after ${seconds(Date.now() - filledAt)} of a full store`);
      assert.ok(worker.alive(), 'the worker survives the full disk');
      disk.free();
      const outcome: SessionResult = await stack.sessions.result(handle.workflowId);
      const tookMs = Date.now() - started;
      assert.equal(outcome.outcome, 'finished');
      const rows = await store.list(handle.workflowId);
      const first = toolResults(rows)[0]?.output ?? '';
      assert.match(first, /slept well\nexit code: 0/, 'the output of the command that ended during the full disk is kept');
      const rowCount = await assertIntactTranscript(store, handle.workflowId);
      const worked = await worker.stop('SIGTERM');
      worker = undefined;
      await store.close();
      assert.equal(integrityOf(storeFile), 'ok');
      assert.ok(seen, 'the server shows the activity and the cause it waits on');
      const logged = worked.stderr.split('\n').filter((line) => DISK_FULL.test(line) || /waiting \d+ ms for space|stored after waiting/.test(line));
      assert.ok(logged.length > 0, 'the worker log names the full store');
      console.log(
        `disk full (store, ${seconds(FULL_MS)}): filled while run_command slept; ` +
          `${seen ? `${seen.activity} attempt ${seen.attempt}, cause in its ${seen.source}: ${seen.message}` : 'no cause seen'}; ` +
          `session RUNNING throughout; space freed → finished ${outcome.steps} steps, first tool result "${first.split('\n')[0]}", ` +
          `${rowCount} rows intact, integrity ok; ${seconds(tookMs)}`,
      );
    } finally {
      await worker?.stop('SIGKILL');
      await simulator.stop();
      await store.close().catch(() => undefined);
      disk.unmount();
    }
  });

  it('the workspace: write_file and run_command report ENOSPC to the model; once space is back they work and the session completes', { timeout: 3 * MINUTE }, async (t) => {
    const disk: SmallDisk | { unavailable: string } = mountSmallDisk(4 * 1024 * 1024);
    if ('unavailable' in disk) {
      console.log(`disk full (workspace): NOT INJECTED — ${disk.unavailable}`);
      t.skip(disk.unavailable);
      return;
    }
    const NOTES = 'original notes\n';
    const BIG = 'x'.repeat(12_000);
    const REPORT = 'report line\n'.repeat(1000);
    const call = (tool: string, args: Record<string, unknown>) => `[sim call ${tool} ${JSON.stringify(args)}]`;
    const task = [
      'work in a workspace whose disk fills',
      call('write_file', { path: 'notes.txt', content: NOTES }),
      // The agent's own command fills the disk: the commonest way a workspace runs out of space.
      call('run_command', { command: 'head -c 64M /dev/zero > filler.bin; echo "head exit $?"' }),
      call('write_file', { path: 'report.txt', content: REPORT }),
      call('write_file', { path: 'notes.txt', content: BIG }),
      call('run_command', { command: 'seq 1 200000 > numbers.txt; echo "seq exit $?"' }),
      call('run_command', { command: 'rm filler.bin && echo freed' }),
      call('write_file', { path: 'report.txt', content: REPORT }),
      call('run_command', { command: 'seq 1 200000 > numbers.txt && wc -l < numbers.txt' }),
    ].join('\n');
    const simulator = await startSimulator({});
    let worker: WorkerProcess | undefined;
    try {
      worker = startWorkerProcess({
        temporalAddress: stack.temporal.address,
        storeFile: stack.storeFile,
        workspaceRoot: disk.dir,
        modelBaseURL: simulator.baseURL,
        // Unsandboxed: the test reads the workspace as the worker wrote it; sandbox.test.ts covers bwrap.
        extra: { AGENTD_UNSANDBOXED_COMMANDS: '1' },
      });
      const started = Date.now();
      const handle = await stack.sessions.start({ task, model: 'agentd-sim' });
      const outcome: SessionResult = await stack.sessions.result(handle.workflowId);
      const tookMs = Date.now() - started;
      assert.equal(outcome.outcome, 'finished');
      assert.equal(outcome.steps, 9, 'eight scripted calls and the finish');

      const rows = await stack.store.list(handle.workflowId);
      const results = toolResults(rows).map((result) => result.output);
      const [wroteNotes, fill, reportFull, notesFull, seqFull, freed, reportAfter, seqAfter] = results;
      assert.match(wroteNotes ?? '', /^wrote 15 bytes/);
      assert.match(fill ?? '', /No space left on device/, 'the filling command says why it stopped');
      assert.match(fill ?? '', /head exit [1-9]/);
      for (const [what, output] of [['write_file report.txt', reportFull], ['write_file notes.txt', notesFull]] as const) {
        assert.match(output ?? '', /^error: /, `${what} on a full disk is an error, not "wrote …"`);
        assert.match(output ?? '', DISK_FULL, `${what}: the model is told the disk is full`);
        assert.doesNotMatch(output ?? '', new RegExp(disk.dir), 'no host path in what the model reads');
      }
      assert.match(seqFull ?? '', /No space left on device/);
      assert.match(seqFull ?? '', /seq exit [1-9]/);
      assert.match(freed ?? '', /freed/);
      assert.equal(reportAfter, `wrote ${REPORT.length} bytes to report.txt`);
      assert.match(seqAfter ?? '', /^200000\n/);

      const workspace = join(disk.dir, handle.workflowId);
      assert.equal(readFileSync(join(workspace, 'report.txt'), 'utf8'), REPORT, 'the write after the space came back is whole');
      assert.equal(statSync(join(workspace, 'numbers.txt')).size, Buffer.byteLength(Array.from({ length: 200000 }, (_, i) => `${i + 1}\n`).join('')));
      assert.equal(existsSync(join(workspace, 'filler.bin')), false);
      // write_file writes a temporary file and renames it: the failed overwrite left the old text, and no debris.
      const notesAfter = readFileSync(join(workspace, 'notes.txt'), 'utf8');
      assert.equal(notesAfter, NOTES, 'the failed overwrite left notes.txt as it was');
      assert.match(notesFull ?? '', /"notes\.txt" is unchanged/, 'the model is told the file was not touched');
      assert.match(reportFull ?? '', /"report\.txt" was not created/);
      assert.deepEqual(readdirSync(workspace).filter((name) => name.endsWith('.tmp')), [], 'no temporary file is left behind');

      const rowCount = await assertIntactTranscript(stack.store, handle.workflowId);
      assert.equal(integrityOf(stack.storeFile), 'ok');
      const errorMeta = rows.filter((row) => row.message.role === 'tool' && row.meta.isError === true).length;
      assert.equal(errorMeta, 2, 'the two failed writes are marked as errors in the transcript');
      console.log(
        `disk full (workspace): 4 MiB tmpfs as AGENTD_WORKSPACES, filled by the agent's own command at step 2 ` +
          `("${(fill ?? '').split('\n')[0]}"); write_file → "${reportFull}"; overwrite of notes.txt → "${notesFull}" ` +
          `(notes.txt still its ${NOTES.length} old bytes); run_command → "${(seqFull ?? '').split('\n')[0]}"; ` +
          `after rm: write_file "${reportAfter}", seq wrote 200000 lines; finished ${outcome.steps} steps, ${rowCount} rows intact, integrity ok; ${seconds(tookMs)}`,
      );
    } finally {
      await worker?.stop('SIGTERM');
      await simulator.stop();
      disk.unmount();
    }
  });
});
