/**
 * The fault soak, shared by its short CI test and its long benchmark: two worker processes on one
 * PostgreSQL store run long sessions across continue-as-new, while one worker at a time is either
 * SIGKILLed (and replaced) or SIGSTOPped for a while (and let go on). Afterwards every transcript is
 * audited: no seq gap, every tool call answered once, no model call repeated for a stored reply.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator } from '../src/simulator/server';
import { totalRejected } from '../src/simulator/stats';
import type { SessionResult } from '../src/session/state';
import { PostgresTranscriptStore } from '../src/store/postgresStore';
import { createTestDatabase } from './postgres';
import { randomInt, seededRandom } from './random';
import { startRecordingProxy } from './recordingProxy';
import { startServerStack } from './stack';
import { auditModelCalls, pairingProblems, seqGaps } from './transcriptChecks';
import { startWorkerProcess, type WorkerEnv, type WorkerProcess } from './workerProcess';

export interface SoakOptions {
  /** A PostgreSQL server URL; the soak makes and drops a database of its own on it. */
  readonly postgresServer: string;
  readonly sessions: number;
  /** Tool steps per session (each session also takes one `finish` step). */
  readonly stepsPerSession: number;
  /** Pause between faults, in ms (a random value in the range). */
  readonly faultGapMs: readonly [number, number];
  /** How long a SIGSTOPped worker stays stopped; above 6 s its activities' heartbeats time out. */
  readonly stopMs: readonly [number, number];
  /** Events per run before the session continues as new. */
  readonly maxHistoryEvents: number;
  readonly seed: number;
  /** Progress lines. */
  readonly log: (line: string) => void;
}

export interface InjectedFault {
  readonly atMs: number;
  readonly kind: 'SIGKILL' | 'SIGSTOP';
  readonly pid: number;
  /** SIGSTOP: how long the worker stayed stopped. */
  readonly stoppedMs?: number;
}

export interface SoakReport {
  readonly seed: number;
  readonly sessions: number;
  readonly steps: number;
  readonly runs: number;
  readonly summaries: number;
  readonly elapsedMs: number;
  readonly faults: readonly InjectedFault[];
  readonly rowsChecked: number;
  readonly unfinished: number;
  readonly seqGaps: number;
  readonly pairingProblems: number;
  readonly wrongStepCounts: number;
  readonly duplicateModelCalls: number;
  readonly rejectedRequests: number;
  readonly workersStarted: number;
  /** Workers that exited without being killed. */
  readonly unexpectedExits: number;
}

/** Everything that counts as lost or repeated; a sound run has 0. */
export function lostIn(report: SoakReport): number {
  return report.unexpectedExits + report.unfinished + report.seqGaps + report.pairingProblems + report.wrongStepCounts + report.duplicateModelCalls + report.rejectedRequests;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const stack = await startServerStack();
  const database = await createTestDatabase(options.postgresServer, 'soak');
  const simulator = await startSimulator({ latencyMs: 5 });
  const proxy = await startRecordingProxy(simulator.port);
  const { sessions } = stack;
  const env: WorkerEnv = { temporalAddress: stack.temporal.address, storeFile: database.url, workspaceRoot: join(stack.dir, 'workspaces'), modelBaseURL: proxy.baseURL };
  const workers: WorkerProcess[] = [startWorkerProcess(env), startWorkerProcess(env)];
  let workersStarted = 2;
  let unexpectedExits = 0;
  let store: PostgresTranscriptStore | undefined;
  const faults: InjectedFault[] = [];
  try {
    const ids: string[] = [];
    for (let index = 0; index < options.sessions; index += 1) {
      const handle = await sessions.start({
        task: `soak #${index}: keep going [sim steps=${options.stepsPerSession} output=200-1500]`,
        model: 'agentd-sim',
        contextWindow: 32_768,
        // Past the default 200 steps the session would wait for an approval nobody gives.
        maxSteps: options.stepsPerSession + 5,
        continueAsNew: { maxHistoryEvents: options.maxHistoryEvents, maxHistoryBytes: 50_000_000 },
      });
      ids.push(handle.workflowId);
    }
    let settled = 0;
    const results = ids.map((id) =>
      sessions.result(id).finally(() => {
        settled += 1;
      }),
    );
    for (const result of results) result.catch(() => undefined);

    // One fault at a time, until every session has settled; a stopped worker always gets SIGCONT.
    while (settled < ids.length) {
      await sleep(randomInt(random, options.faultGapMs[0], options.faultGapMs[1]));
      if (settled >= ids.length) break;
      const slot = randomInt(random, 0, workers.length - 1);
      const worker = workers[slot]!;
      const atMs = Date.now() - started;
      if (!worker.alive()) {
        // A worker that ended by itself is a finding, not a fault of ours: say so and replace it.
        const { code, stderr } = await worker.done;
        unexpectedExits += 1;
        options.log(`${seconds(atMs)}: worker ${worker.pid} had exited by itself (code ${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
        workers[slot] = startWorkerProcess(env);
        workersStarted += 1;
      } else if (faults.length === 0 || random() < 0.5) {
        // The first fault is a kill: a long first stop would hold the loop while the other worker
        // finishes every session, and the run would end with that single fault.
        await worker.stop('SIGKILL');
        faults.push({ atMs, kind: 'SIGKILL', pid: worker.pid });
        workers[slot] = startWorkerProcess(env);
        workersStarted += 1;
        options.log(`${seconds(atMs)}: SIGKILL worker ${worker.pid}; started ${workers[slot].pid} (${settled}/${ids.length} sessions done)`);
      } else {
        const stoppedMs = randomInt(random, options.stopMs[0], options.stopMs[1]);
        process.kill(worker.pid, 'SIGSTOP');
        await sleep(stoppedMs);
        process.kill(worker.pid, 'SIGCONT');
        faults.push({ atMs, kind: 'SIGSTOP', pid: worker.pid, stoppedMs });
        options.log(`${seconds(atMs)}: SIGSTOP worker ${worker.pid} for ${seconds(stoppedMs)} (${settled}/${ids.length} sessions done)`);
      }
    }
    const outcomes = await Promise.allSettled(results);

    store = await PostgresTranscriptStore.open({ url: database.url });
    const calls = proxy.calls();
    const report = { steps: 0, runs: 0, summaries: 0, rowsChecked: 0, unfinished: 0, seqGaps: 0, pairingProblems: 0, wrongStepCounts: 0, duplicateModelCalls: 0 };
    for (const [index, id] of ids.entries()) {
      const outcome = outcomes[index]!;
      if (outcome.status !== 'fulfilled' || outcome.value.outcome !== 'finished') {
        report.unfinished += 1;
        options.log(`session ${id} did not finish: ${outcome.status === 'rejected' ? String(outcome.reason) : outcome.value.outcome}`);
        continue;
      }
      const result: SessionResult = outcome.value;
      report.steps += result.steps;
      report.runs += result.finalState?.runs ?? 1;
      report.summaries += result.finalState?.compaction.byStrategy.summary ?? 0;
      if (result.steps !== options.stepsPerSession + 1) report.wrongStepCounts += 1;
      const rows = await store.list(id);
      report.rowsChecked += rows.length;
      report.seqGaps += seqGaps(rows).length;
      report.pairingProblems += pairingProblems(rows).length;
      const tag = `soak #${index}:`;
      report.duplicateModelCalls += auditModelCalls(rows, calls.filter((call) => call.task.includes(tag))).duplicates.length;
    }
    return {
      seed: options.seed,
      sessions: ids.length,
      elapsedMs: Date.now() - started,
      faults,
      rejectedRequests: totalRejected(simulator.stats()),
      workersStarted,
      unexpectedExits,
      ...report,
    };
  } catch (error) {
    // Said before the teardown, whose own troubles could otherwise hide it.
    options.log(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw error;
  } finally {
    for (const worker of workers) {
      if (worker.alive()) process.kill(worker.pid, 'SIGCONT');
      await worker.stop('SIGTERM');
    }
    await store?.close();
    await proxy.stop();
    await simulator.stop();
    await stack.stop();
    await database.drop();
  }
}

/** One line for a test's output or the report's summary. */
export function describeSoak(report: SoakReport): string {
  const kills = report.faults.filter((fault) => fault.kind === 'SIGKILL').length;
  const stops = report.faults.filter((fault) => fault.kind === 'SIGSTOP');
  const longest = Math.max(0, ...stops.map((fault) => fault.stoppedMs ?? 0));
  return (
    `soak (seed ${report.seed}): ${report.sessions} sessions, ${report.steps} steps in ${report.runs} runs, ${report.summaries} summaries, ` +
    `${kills} SIGKILLs and ${stops.length} SIGSTOPs (longest ${seconds(longest)}) over ${seconds(report.elapsedMs)} on two workers (${report.workersStarted} started); ` +
    `${report.rowsChecked} rows checked; lost ${lostIn(report)} (unfinished ${report.unfinished}, seq gaps ${report.seqGaps}, ` +
    `unanswered or stray tool results ${report.pairingProblems}, wrong step counts ${report.wrongStepCounts}, ` +
    `duplicate model calls ${report.duplicateModelCalls}, refused requests ${report.rejectedRequests}, workers that exited by themselves ${report.unexpectedExits})`
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
