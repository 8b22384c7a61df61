/**
 * The fault soak, short: two workers on one PostgreSQL store, sessions across continue-as-new, and
 * random SIGKILLs and SIGSTOPs (some longer than the heartbeat timeout) until every session is done.
 * Nothing may be lost or repeated. `npm run bench:soak` runs the long one (bench/results/soak.md).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testPostgresUrl } from '../../harness/postgres';
import { faultSeed } from '../../harness/random';
import { describeSoak, lostIn, runSoak } from '../../harness/soak';

const MINUTE = 60_000;
/**
 * Enough steps that the sessions outlast two faults, a kill and whatever comes next, on a fast
 * machine too: the second fault comes at most 12 s in (two gaps of at most 6 s), and 3 × 80 steps
 * once ended in 10 s after a single early kill. 3 × 160 take about 20 s at that pace.
 */
const STEPS = 160;
const postgresServer = testPostgresUrl('the soak test');

describe('fault soak, short', { skip: postgresServer ? false : 'AGENTD_TEST_POSTGRES_URL is not set' }, () => {
  it('loses nothing while workers are killed and paused at random across continue-as-new', { timeout: 8 * MINUTE }, async () => {
    const report = await runSoak({
      postgresServer: postgresServer!,
      sessions: 3,
      stepsPerSession: STEPS,
      faultGapMs: [3_000, 6_000],
      stopMs: [2_000, 25_000],
      maxHistoryEvents: 200,
      seed: faultSeed(),
      log: (line) => console.log(line),
    });
    console.log(describeSoak(report));
    assert.equal(lostIn(report), 0, 'nothing lost, nothing repeated');
    assert.ok(report.faults.length >= 2, `faults were injected (${report.faults.length})`);
    assert.ok(report.runs > report.sessions, 'the sessions continued as new');
    assert.equal(report.steps, 3 * (STEPS + 1));
  });
});
