/**
 * Sessions on a schedule (`agentd schedule`), on a real dev server with a worker and the simulator:
 * a tick starts a session of its own under `<name>-<time>`, a tick while one still runs is skipped,
 * a paused schedule starts nothing, and agentd's listing and the stock CLI's name the same schedules.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { SessionSchedules, type ScheduleRow } from '../../src/client/sessionSchedules';
import { ensureTemporalCli } from '../../src/devServer/temporalCli';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { agentdOn, eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

const run = promisify(execFile);

describe('agentd schedule', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  async function listed(): Promise<ScheduleRow[]> {
    const answer = await agentd('schedule', 'list', '--json');
    assert.equal(answer.code, 0, answer.stderr);
    return JSON.parse(answer.stdout) as ScheduleRow[];
  }

  async function stockListed(): Promise<string[]> {
    const cli = await ensureTemporalCli();
    const { stdout } = await run(cli, ['schedule', 'list', '--address', stack.temporal.address, '--output', 'json']);
    const rows = JSON.parse(stdout) as Array<{ scheduleId?: string; schedule_id?: string }>;
    return rows.map((row) => row.scheduleId ?? row.schedule_id ?? '').sort();
  }

  it('starts a session per tick, skips the ticks that come while one runs, and stops when paused', { timeout: 180_000 }, async () => {
    // Each session takes about 4 s (8 calls of 0.5 s), the schedule ticks every 2 s: half the ticks meet a running session.
    await stack.withWorker({ latencyMs: 500 }, async () => {
      const made = await agentd('schedule', 'create', 'tally', 'tally the numbers [sim steps=8]', '--every', '2s', '--model', 'agentd-sim');
      assert.equal(made.code, 0, made.stderr);
      assert.equal(made.stdout.trim(), 'tally');

      const schedules = new SessionSchedules(stack.client);
      const counts = await eventually(async () => {
        const now = await schedules.counts('tally');
        return now.started >= 3 && now.skippedOverlap >= 1 ? now : undefined;
      }, 'three sessions started and a tick skipped', 90_000);
      console.log(`tally: ${counts.started} sessions started, ${counts.skippedOverlap} ticks skipped while one ran`);

      const paused = await agentd('schedule', 'pause', 'tally', '--note', 'for the test');
      assert.equal(paused.code, 0, paused.stderr);
      const atPause = (await schedules.counts('tally')).started;
      const row = await eventually(async () => (await listed()).find((candidate) => candidate.name === 'tally' && candidate.paused), 'the listing to show the pause');
      assert.equal(row.note, 'for the test');
      assert.equal(row.when, 'every 2s');

      // Three intervals: an unpaused schedule would have ticked at least once more.
      await sleep(6_000);
      assert.equal((await schedules.counts('tally')).started, atPause, 'no tick while paused');

      // Every session the schedule started is a session of its own, named <name>-<time>, and finishes.
      const ids = (await listed()).find((candidate) => candidate.name === 'tally')?.recentSessions ?? [];
      assert.ok(ids.length >= 3, `recent sessions: ${ids.join(', ')}`);
      const spans: Array<{ id: string; start: number; close: number }> = [];
      for (const id of ids) {
        assert.match(id, /^tally-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        const result = await stack.sessions.result(id);
        assert.equal(result.outcome, 'finished', `${id}: ${JSON.stringify(result).slice(0, 300)}`);
        // The id's colons reach the workspace folder, the sandbox and the store: a command ran there.
        const rows = await stack.store.list(id);
        const commands = rows.filter((row) => row.message.role === 'tool' && row.meta.toolName === 'run_command');
        assert.ok(commands.length > 0 && commands.every((row) => row.meta.isError !== true && !/^error/.test(String(row.message.content))), `${id}: run_command results ${JSON.stringify(commands.map((row) => row.meta))}`);
        const description = await stack.client.workflow.getHandle(id).describe();
        spans.push({ id, start: description.startTime.getTime(), close: description.closeTime?.getTime() ?? Infinity });
      }
      // Overlap skip: no two of them ran at once.
      spans.sort((a, b) => a.start - b.start);
      for (let index = 1; index < spans.length; index += 1) {
        const [earlier, later] = [spans[index - 1]!, spans[index]!];
        assert.ok(later.start >= earlier.close, `${later.id} started before ${earlier.id} closed`);
      }

      // A tick on demand, under the schedule's own overlap policy, even while paused.
      const triggered = await agentd('schedule', 'trigger', 'tally');
      assert.equal(triggered.code, 0, triggered.stderr);
      await eventually(async () => ((await schedules.counts('tally')).started > atPause ? true : undefined), 'the triggered session');
    });

    assert.deepEqual((await listed()).map((row) => row.name), await stockListed(), 'agentd and the stock CLI list the same schedules');

    const deleted = await agentd('schedule', 'delete', 'tally');
    assert.equal(deleted.code, 0, deleted.stderr);
    await eventually(async () => ((await listed()).some((row) => row.name === 'tally') ? undefined : true), 'the schedule to leave the listing');
    const again = await agentd('schedule', 'delete', 'tally');
    assert.equal(again.code, 3, again.stderr);
    assert.match(again.stderr, /no schedule named tally/);
  });

  it('refuses a schedule the server cannot read or a name already taken, with exit 2', async () => {
    const badCron = await agentd('schedule', 'create', 'nightly', 'x', '--cron', '61 * * * *', '--model', 'agentd-sim');
    assert.equal(badCron.code, 2, badCron.stderr);
    assert.match(badCron.stderr, /invalid schedule/);

    const first = await agentd('schedule', 'create', 'nightly', 'tidy up', '--cron', '0 3 * * *', '--model', 'agentd-sim');
    assert.equal(first.code, 0, first.stderr);
    const second = await agentd('schedule', 'create', 'nightly', 'tidy up', '--cron', '0 3 * * *', '--model', 'agentd-sim');
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /a schedule named nightly already exists/);
    const row = (await listed()).find((candidate) => candidate.name === 'nightly');
    assert.equal(row?.when, 'cron 0 3 * * *');
    assert.equal(row?.paused, false);
    assert.match(row?.nextRuns[0] ?? '', /T03:00:00\.000Z$/);
    assert.equal((await agentd('schedule', 'delete', 'nightly')).code, 0);
  });

  it('names the bad field and exits 2 before connecting', async () => {
    const noServer = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const cases: Array<{ args: string[]; field: RegExp }> = [
      { args: ['schedule'], field: /<action>: expected one of create, list, pause, unpause, trigger, delete/ },
      { args: ['schedule', 'create', 'n', 'task', '--model', 'agentd-sim'], field: /cron: give exactly one of cron and every/ },
      { args: ['schedule', 'create', 'n', 'task', '--cron', '0 3 * * *', '--every', '1h', '--model', 'agentd-sim'], field: /cron: give exactly one of cron and every/ },
      { args: ['schedule', 'create', 'n', 'task', '--every', 'soon', '--model', 'agentd-sim'], field: /every: expected a whole number and a unit/ },
      { args: ['schedule', 'create', 'n', 'task', '--every', '1h', '--overlap', 'sometimes', '--model', 'agentd-sim'], field: /overlap: Invalid option/ },
      { args: ['schedule', 'create', '../n', 'task', '--every', '1h', '--model', 'agentd-sim'], field: /name: "\.\.\/n" is not allowed/ },
      { args: ['schedule', 'create', 'x'.repeat(120), 'task', '--every', '1h', '--model', 'agentd-sim'], field: /name: at most 107 characters/ },
      { args: ['schedule', 'create', 'n', 'task', '--every', '1h', '--model', 'agentd-sim', '--context-window', '5'], field: /contextWindow: Too small/ },
      { args: ['schedule', 'create', 'n', '--every', '1h', '--model', 'agentd-sim'], field: /<task>/ },
    ];
    for (const { args, field } of cases) {
      const answer = await finished(spawnNode(entryPoint('cli/main'), args, noServer));
      assert.equal(answer.code, 2, `${args.join(' ')}: ${answer.stderr}`);
      assert.match(answer.stderr, field, args.join(' '));
      assert.doesNotMatch(answer.stderr, /cannot reach the Temporal server/);
    }
  });
});
