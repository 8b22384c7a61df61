/**
 * `npm run bench:soak`: the long fault soak. Two worker processes on one PostgreSQL store run four
 * sessions of 520 tool steps each (2,084 steps with their finish calls) across continue-as-new,
 * while one worker at a time is SIGKILLed and replaced, or SIGSTOPped for up to 40 s. Writes
 * bench/results/soak.{json,md}: the faults injected, the steps, the rows checked, and what was lost
 * (which must be nothing; the script exits 1 otherwise). Needs AGENTD_TEST_POSTGRES_URL
 * (`eval "$(scripts/test-postgres.sh start)"`). AGENTD_FAULT_SEED replays a run.
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { testPostgresUrl } from '../harness/postgres';
import { faultSeed } from '../harness/random';
import { describeSoak, lostIn, runSoak } from '../harness/soak';
import { int, say, table } from './lib/result';

const COMMAND = 'eval "$(scripts/test-postgres.sh start)" && npm run bench:soak';
const RESULTS_DIR = join(__dirname, '..', '..', 'bench', 'results');

async function main(): Promise<void> {
  const postgresServer = testPostgresUrl('the soak benchmark');
  if (!postgresServer) process.exit(2);
  const seed = faultSeed();
  say(`soak with seed ${seed}: 4 sessions × 520 steps, two workers, faults every 8–20 s`);
  const report = await runSoak({
    postgresServer,
    sessions: 4,
    stepsPerSession: 520,
    faultGapMs: [8_000, 20_000],
    stopMs: [3_000, 40_000],
    maxHistoryEvents: 1_000,
    seed,
    log: say,
  });
  const summary = describeSoak(report);
  say(summary);
  const markdown = [
    '# Fault soak',
    '',
    `Command: \`${COMMAND}\` (seed ${seed}; \`AGENTD_FAULT_SEED=${seed}\` replays the fault schedule).`,
    `Machine: ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)} at the end.`,
    '',
    summary + '.',
    '',
    ...table(
      ['what', 'figure'],
      [
        ['sessions / steps / runs', `${report.sessions} / ${int(report.steps)} / ${report.runs}`],
        ['summaries written', int(report.summaries)],
        ['SIGKILLs / SIGSTOPs', `${report.faults.filter((f) => f.kind === 'SIGKILL').length} / ${report.faults.filter((f) => f.kind === 'SIGSTOP').length}`],
        ['worker processes started', String(report.workersStarted)],
        ['workers that exited by themselves', String(report.unexpectedExits)],
        ['transcript rows checked', int(report.rowsChecked)],
        ['unfinished sessions', String(report.unfinished)],
        ['seq gaps', String(report.seqGaps)],
        ['unanswered or stray tool results', String(report.pairingProblems)],
        ['sessions with a wrong step count', String(report.wrongStepCounts)],
        ['model calls repeated for a stored reply', String(report.duplicateModelCalls)],
        ['requests the strict simulator refused', String(report.rejectedRequests)],
        ['wall time', `${(report.elapsedMs / 60_000).toFixed(1)} min`],
      ],
    ),
    '',
    '## Faults injected',
    '',
    ...table(
      ['at', 'fault', 'worker', 'stopped for'],
      report.faults.map((fault) => [`${(fault.atMs / 1000).toFixed(1)} s`, fault.kind, String(fault.pid), fault.stoppedMs ? `${(fault.stoppedMs / 1000).toFixed(1)} s` : '']),
    ),
    '',
  ];
  await writeFile(join(RESULTS_DIR, 'soak.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(RESULTS_DIR, 'soak.md'), markdown.join('\n'));
  if (lostIn(report) > 0) process.exit(1);
}

// Ctrl-C or a kill ends the run through process exit, whose handlers take the worker processes along.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
