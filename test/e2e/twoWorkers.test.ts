/**
 * Several workers at once: two worker processes on one task queue share a PostgreSQL transcript
 * store, run 20 sessions between them, and one is killed with SIGKILL mid-run. Every session must
 * finish with its transcript intact. Real parts: a dev server, worker processes, PostgreSQL, HTTP
 * to the simulator through a recording proxy.
 */
import type { Client } from '@temporalio/client';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import type { SessionResult } from '../../src/session/state';
import { PostgresTranscriptStore } from '../../src/store/postgresStore';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../harness/postgres';
import { startRecordingProxy, type RecordingProxy } from '../../harness/recordingProxy';
import { eventually, startServerStack, type ServerStack } from '../../harness/stack';
import { auditModelCalls, pairingProblems, seqGaps } from '../../harness/transcriptChecks';
import { startPollingWorker, type WorkerEnv, type WorkerProcess } from '../../harness/workerProcess';

const MINUTE = 60_000;
const SESSIONS = 20;
const postgresServer = testPostgresUrl('the two-worker test');

/** 8 to 15 steps, varied so sessions end at different times and land on both workers. */
function stepsOf(index: number): number {
  return 8 + ((index * 5) % 8);
}

function taskOf(index: number): string {
  return `two workers #${String(index).padStart(2, '0')}: tally the numbers [sim steps=${stepsOf(index)} output=200-800]`;
}

describe('two workers sharing a PostgreSQL store', { skip: postgresServer ? false : 'AGENTD_TEST_POSTGRES_URL is not set' }, () => {
  let stack: ServerStack;
  let database: TestDatabase;
  before(async () => {
    stack = await startServerStack();
    database = await createTestDatabase(postgresServer!, 'workers');
  });
  after(async () => {
    await stack?.stop();
    await database?.drop();
  });

  it('finishes 20 sessions with intact transcripts when one of two workers is killed mid-run', { timeout: 5 * MINUTE }, async () => {
    let simulator: RunningSimulator | undefined;
    let proxy: RecordingProxy | undefined;
    const workers: WorkerProcess[] = [];
    // The test's own connection opens after the workers': they race each other to migrate.
    let store: PostgresTranscriptStore | undefined;
    try {
      simulator = await startSimulator({ latencyMs: 30 });
      proxy = await startRecordingProxy(simulator.port);
      const env: WorkerEnv = {
        temporalAddress: stack.temporal.address,
        storeFile: database.url,
        // One host here; across hosts, workspaces live on storage every worker mounts.
        workspaceRoot: join(stack.dir, 'workspaces'),
        modelBaseURL: proxy.baseURL,
      };
      // Both poll before any session starts, so both are handed sessions and the kill proves something.
      workers.push(...(await Promise.all([startPollingWorker(env), startPollingWorker(env)])));
      const [doomed, survivor] = workers as [WorkerProcess, WorkerProcess];
      store = await PostgresTranscriptStore.open({ url: database.url });
      const openStore = store;

      const ids: string[] = [];
      for (let index = 0; index < SESSIONS; index += 1) {
        ids.push((await stack.sessions.start({ task: taskOf(index), model: 'agentd-sim' })).workflowId);
      }
      const results = ids.map((id) => stack.sessions.result(id));
      // Rejections are read below; this only keeps an early one from being reported as unhandled.
      for (const result of results) result.catch(() => undefined);

      // Kill once a good share of the work is done but far from all of it: progress is read from
      // the store, the one place both workers write to.
      const totalSteps = ids.reduce((sum, _, index) => sum + stepsOf(index) + 1, 0);
      const repliesAtKill = await eventually(
        async () => {
          const replies = (await openStore.sessions()).reduce((sum, session) => sum + (session.messages - 2) / 2, 0);
          return replies >= totalSteps / 4 ? Math.floor(replies) : undefined;
        },
        'a quarter of all steps',
        2 * MINUTE,
      );
      const killed = await doomed.stop('SIGKILL');
      assert.equal(killed.code, null, 'the first worker died of the signal');

      const outcomes = await Promise.allSettled(results);
      const unfinished = outcomes.filter((outcome) => outcome.status !== 'fulfilled' || outcome.value.outcome !== 'finished');
      assert.deepEqual(unfinished, [], 'every session finished');

      let steps = 0;
      let gaps = 0;
      let unpaired = 0;
      let wrongLength = 0;
      let duplicates = 0;
      let touchedByKilled = 0;
      let movedToSurvivor = 0;
      for (const [index, id] of ids.entries()) {
        const result = (outcomes[index] as PromiseFulfilledResult<SessionResult>).value;
        assert.equal(result.steps, stepsOf(index) + 1, `session ${index}: its tool steps and the finish call`);
        steps += result.steps;
        const rows = await openStore.list(id);
        gaps += seqGaps(rows).length;
        unpaired += pairingProblems(rows).length;
        if (rows.length !== 2 + 2 * result.steps || rows[0]?.seq !== 0) wrongLength += 1;
        const tag = `#${String(index).padStart(2, '0')}:`;
        duplicates += auditModelCalls(rows, proxy.calls().filter((call) => call.task.includes(tag))).duplicates.length;

        const identities = await workerIdentities(stack.client, id);
        const byKilled = identities.some((identity) => identity.startsWith(`${doomed.pid}@`));
        if (byKilled) touchedByKilled += 1;
        if (byKilled && identities.some((identity) => identity.startsWith(`${survivor.pid}@`))) movedToSurvivor += 1;
      }
      const lost = gaps + unpaired + wrongLength + duplicates;
      console.log(
        `two workers, one SIGKILLed at ${repliesAtKill}/${totalSteps} steps: ${SESSIONS} sessions, ${steps} steps, ` +
          `${touchedByKilled} sessions had run on the killed worker, ${movedToSurvivor} of them finished on the other; ` +
          `lost ${lost} (seq gaps ${gaps}, unanswered or stray tool results ${unpaired}, wrong transcript length ${wrongLength}, ` +
          `duplicate model calls ${duplicates})`,
      );
      assert.equal(lost, 0, 'nothing lost, nothing repeated');
      assert.ok(touchedByKilled > 0, 'the killed worker had taken part: otherwise the kill proved nothing');
      assert.ok(movedToSurvivor > 0, 'some session the killed worker had run was finished by the other');
      assert.equal(totalRejected(simulator.stats()), 0, 'the strict endpoint refused nothing');
    } finally {
      for (const worker of workers) await worker.stop('SIGTERM');
      await store?.close();
      await proxy?.stop();
      await simulator?.stop();
    }
  });
});

/** Identities of the workers that ran the session's workflow tasks and its activities. */
async function workerIdentities(client: Client, sessionId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(sessionId).fetchHistory();
  const identities = new Set<string>();
  for (const event of history.events ?? []) {
    const identity = event.workflowTaskStartedEventAttributes?.identity ?? event.activityTaskStartedEventAttributes?.identity;
    if (identity) identities.add(identity);
  }
  return [...identities];
}
