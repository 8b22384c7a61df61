/**
 * agentd on a real Temporal cluster (scripts/temporal-cluster.sh: the Temporal server on PostgreSQL
 * with SQL visibility, not the CLI's dev server): two worker processes on the PostgreSQL transcript
 * store run 20 sessions with compactions while one worker is killed and the Temporal server is
 * restarted; the fleet is read through `agentd list`, the stock CLI and the console; a 2,000-step
 * session crosses continue-as-new. Every transcript is checked row by row in the store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startConsole } from '../../src/console/server';
import { isSummaryMessage } from '../../src/model/summaryFormat';
import { ensureTemporalCli } from '../../src/devServer/temporalCli';
import type { SessionResult } from '../../src/session/state';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import { PostgresTranscriptStore } from '../../src/store/postgresStore';
import { historyWriteTotals } from '../../bench/scale/historyWrites';
import { connectCluster, restartCluster, terminateLeftovers, testClusterAddress, type ClusterClient } from '../../harness/cluster';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../../harness/postgres';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { startRecordingProxy, type RecordingProxy } from '../../harness/recordingProxy';
import { eventually } from '../../harness/stack';
import { auditModelCalls, pairingProblems, seqGaps } from '../../harness/transcriptChecks';
import { startPollingWorker, startWorkerProcess, type WorkerEnv, type WorkerProcess } from '../../harness/workerProcess';

const MINUTE = 60_000;
const SESSIONS = 20;
const LONG_STEPS = 2000;
const address = testClusterAddress('the cluster suite');
const postgresServer = address ? testPostgresUrl('the cluster suite') : undefined;

function stepsOf(index: number): number {
  return 14 + ((index * 7) % 9);
}

describe('on a real Temporal cluster (PostgreSQL persistence and visibility)', { skip: address && postgresServer ? false : 'no cluster' }, () => {
  const run = randomBytes(3).toString('hex');
  let cluster: ClusterClient;
  let database: TestDatabase;
  let store: PostgresTranscriptStore;
  let simulator: RunningSimulator;
  let proxy: RecordingProxy;
  let workspaces: string;
  let env: WorkerEnv;
  const workers: WorkerProcess[] = [];

  before(async () => {
    cluster = await connectCluster(address!);
    const leftovers = await terminateLeftovers(cluster.client);
    if (leftovers > 0) process.stderr.write(`cluster: terminated ${leftovers} session(s) an earlier run left open\n`);
    database = await createTestDatabase(postgresServer!, 'cluster');
    simulator = await startSimulator({ latencyMs: 20 });
    proxy = await startRecordingProxy(simulator.port);
    workspaces = await mkdtemp(join(tmpdir(), 'agentd-cluster-'));
    env = { temporalAddress: address!, storeFile: database.url, workspaceRoot: workspaces, modelBaseURL: proxy.baseURL };
    // Both poll before any session starts, so both are handed sessions and the kill proves something.
    workers.push(...(await Promise.all([startPollingWorker(env), startPollingWorker(env)])));
    // Opened after the workers', which race each other to migrate the new database.
    store = await eventually(async () => PostgresTranscriptStore.open({ url: database.url }).catch(() => undefined), 'the store');
  });
  after(async () => {
    for (const worker of workers) await worker.stop('SIGTERM');
    await store?.close();
    await proxy?.stop();
    await simulator?.stop();
    await cluster?.close();
    await database?.drop();
    await rm(workspaces, { recursive: true, force: true });
  });

  /** One line per problem a stored transcript has; none for a whole one. */
  async function transcriptProblems(id: string, steps: number, tag: string): Promise<string[]> {
    const rows = await store.list(id);
    const conversation = rows.filter((row) => row.meta.kind !== 'view' && row.meta.kind !== 'memory' && !(row.message.role === 'user' && isSummaryMessage(row.message.content)));
    return [
      ...seqGaps(rows).map((seq) => `${id}: seq ${seq} missing`),
      ...pairingProblems(rows).map((problem) => `${id}: ${problem}`),
      ...(conversation.filter((row) => row.message.role === 'assistant').length === steps ? [] : [`${id}: ${steps} replies expected`]),
      ...auditModelCalls(rows, proxy.calls().filter((call) => call.task.includes(tag))).duplicates.map((dup) => `${id}: seq ${dup.seq} asked again after it was stored`),
    ];
  }

  it('finishes 20 sessions with compactions through a killed worker and a restarted server, nothing lost or run twice', { timeout: 10 * MINUTE }, async () => {
    const ids: string[] = [];
    for (let index = 0; index < SESSIONS; index += 1) {
      const tag = `#${run}-${String(index).padStart(2, '0')}:`;
      const task = `cluster ${tag} tally the numbers [sim steps=${stepsOf(index)} output=4000-8000 pace=busy]`;
      ids.push((await cluster.sessions.start({ task, model: 'agentd-sim', contextWindow: 16_384, compaction: { reserveTokens: 4096 } }, { sessionId: `cluster-${run}-${index}` })).workflowId);
    }
    const results = ids.map((id) => cluster.sessions.result(id));
    for (const result of results) result.catch(() => undefined);

    const total = ids.reduce((sum, _, index) => sum + stepsOf(index) + 1, 0);
    const replies = async () => {
      let count = 0;
      for (const id of ids) count += (await store.list(id)).filter((row) => row.message.role === 'assistant').length;
      return count;
    };
    const atKill = await eventually(async () => ((await replies()) >= total / 4 ? replies() : undefined), 'a quarter of all steps', 3 * MINUTE);
    const doomed = workers[0]!;
    const killed = await doomed.stop('SIGKILL');
    assert.equal(killed.code, null, 'the worker died of the signal');
    workers[0] = startWorkerProcess(env);
    const atRestart = await eventually(async () => ((await replies()) >= total / 2 ? replies() : undefined), 'half of all steps', 3 * MINUTE);
    const away = await restartCluster();

    const outcomes = await Promise.allSettled(results);
    const unfinished = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' && outcome.value.outcome === 'finished' ? [] : [`${ids[index]}: ${outcome.status === 'rejected' ? String(outcome.reason) : outcome.value.outcome}`]));
    assert.deepEqual(unfinished, [], 'every session finished');
    const problems: string[] = [];
    let compactions = 0;
    for (const [index, id] of ids.entries()) {
      const result = (outcomes[index] as PromiseFulfilledResult<SessionResult>).value;
      assert.equal(result.steps, stepsOf(index) + 1, `${id}: its tool steps and the finish call`);
      problems.push(...(await transcriptProblems(id, result.steps, `#${run}-${String(index).padStart(2, '0')}:`)));
      compactions += result.finalState?.compaction.compactions ?? 0;
      assert.ok((result.finalState?.compaction.compactions ?? 0) > 0, `${id} compacted`);
    }
    let touchedByKilled = 0;
    for (const id of ids) {
      const { events } = await cluster.client.workflow.getHandle(id).fetchHistory();
      if ((events ?? []).some((event) => (event.workflowTaskStartedEventAttributes?.identity ?? event.activityTaskStartedEventAttributes?.identity ?? '').startsWith(`${doomed.pid}@`))) touchedByKilled += 1;
    }
    assert.ok(touchedByKilled > 0, 'the killed worker had taken part: otherwise the kill proved nothing');
    console.log(`cluster: ${SESSIONS} sessions (${touchedByKilled} had run on the killed worker), ${total} steps, ${compactions} compactions; a worker SIGKILLed at ${atKill} steps, the server restarted at ${atRestart} (away ${away} ms); problems: ${problems.length}`);
    assert.deepEqual(problems, []);
    assert.equal(totalRejected(simulator.stats()), 0, 'the strict endpoint refused nothing');
  });

  it('lists the fleet from SQL visibility: agentd list with filters, the stock CLI and the console agree', { timeout: 3 * MINUTE }, async () => {
    const ours = (ids: readonly string[]) => ids.filter((id) => id.startsWith(`cluster-${run}-`)).sort();
    const expected = Array.from({ length: SESSIONS }, (_, index) => `cluster-${run}-${index}`).sort();
    const cli = spawnNode(entryPoint('cli/main'), ['list', '--status', 'completed', '--model', 'agentd-sim', '--limit', '1000', '--json'], { TEMPORAL_ADDRESS: address });
    const listed = await finished(cli);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(ours((JSON.parse(listed.stdout) as Array<{ sessionId: string }>).map((session) => session.sessionId)), expected);
    const none = await finished(spawnNode(entryPoint('cli/main'), ['list', '--status', 'waiting_for_approval', '--json'], { TEMPORAL_ADDRESS: address }));
    assert.deepEqual(ours((JSON.parse(none.stdout) as Array<{ sessionId: string }>).map((session) => session.sessionId)), []);

    const temporal = await ensureTemporalCli();
    const query = `AgentdStatus = 'completed' AND AgentdModel = 'agentd-sim'`;
    const { stdout: stock } = await promisify(execFile)(temporal, ['workflow', 'list', '--address', address!, '--query', query, '--limit', '1000', '-o', 'json']);
    const stockIds = stock.trim() === '' ? [] : (JSON.parse(stock) as Array<{ execution: { workflowId: string } }>).map((row) => row.execution.workflowId);
    assert.deepEqual(ours(stockIds), expected);

    const fleetConsole = await startConsole({ client: cluster.client, sessions: cluster.sessions, store }, { host: '127.0.0.1', port: 0 });
    try {
      const page = (await (await fetch(`${fleetConsole.baseUrl}api/sessions?status=completed&model=agentd-sim`)).json()) as { rows: Array<{ sessionId: string }> };
      assert.deepEqual(ours(page.rows.map((row) => row.sessionId)), expected);
      assert.ok((await (await fetch(fleetConsole.baseUrl)).text()).includes('<table'), 'the fleet page itself is served');
    } finally {
      await fleetConsole.close();
    }
  });

  it(`runs a ${LONG_STEPS}-step session across continue-as-new with every row in place`, { timeout: 15 * MINUTE }, async () => {
    const tag = `#${run}-long:`;
    const id = `cluster-${run}-long`;
    const started = Date.now();
    await cluster.sessions.start({ task: `cluster ${tag} the long haul [sim steps=${LONG_STEPS} output=100-400]`, model: 'agentd-sim', maxSteps: LONG_STEPS + 10 }, { sessionId: id });
    const result: SessionResult = await cluster.sessions.result(id);
    const took = Date.now() - started;
    assert.equal(result.outcome, 'finished');
    assert.equal(result.steps, LONG_STEPS + 1);
    const runs = result.finalState?.runs ?? 1;
    assert.ok(runs >= 2, `the session went on in ${runs} run(s)`);
    assert.deepEqual(await transcriptProblems(id, result.steps, tag), []);
    console.log(`cluster: ${LONG_STEPS + 1} steps in ${runs} runs, ${Math.round(took / 1000)} s (${Math.round(took / result.steps)} ms per step)`);
  });

  // The scale benchmark names what bounds a cluster's steps from these two figures.
  it("serves the history writes' waits and times on its metrics endpoint", { skip: process.env.AGENTD_TEST_CLUSTER_METRICS ? false : 'AGENTD_TEST_CLUSTER_METRICS is not set' }, async () => {
    const totals = await historyWriteTotals(`http://${process.env.AGENTD_TEST_CLUSTER_METRICS}/metrics`);
    assert.ok(totals.slotWaits > 0, `shard I/O slot waits: ${JSON.stringify(totals)}`);
    assert.ok(totals.updates > 0 && totals.updateSeconds > 0, `workflow updates: ${JSON.stringify(totals)}`);
  });
});
