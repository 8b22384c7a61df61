/** `agentd schedule`: sessions on a Temporal Schedule — made, listed, paused, fired now and deleted. */
import { connectClient } from '../../client/sessionClient';
import { OVERLAP_POLICIES, parseScheduleSpec } from '../../client/scheduleSpec';
import { ScheduleMissingError, SessionSchedules, type ScheduleRow } from '../../client/sessionSchedules';
import { resolveStart } from '../../session/resolve';
import { ExitCode, UsageError, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, requirePositional } from '../args';
import { printable } from '../printable';
import { SESSION_OPTIONS, SESSION_OPTIONS_HELP, sessionRequestOf } from '../sessionOptions';

const ACTIONS = ['create', 'list', 'pause', 'unpause', 'trigger', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

const HELP = `usage: agentd schedule create <name> <task> (--cron EXPR | --every DURATION) [options]
       agentd schedule list [--json]
       agentd schedule pause|unpause <name> [--note TEXT]
       agentd schedule trigger|delete <name>

A schedule starts a session of its own on every tick, under the id <name>-<time> (e.g.
nightly-2026-12-05T03:00:00Z). It is a Temporal Schedule: the stock CLI (temporal schedule list)
and the Web UI's Schedules page show it too. The session input is checked in full when the
schedule is made, with the same options as agentd start. Deleting a schedule leaves the sessions
it started running.

  --cron EXPR              five-field cron, UTC unless it begins with CRON_TZ=<zone>, e.g. '0 3 * * *'
  --every DURATION         an interval instead: 30s, 10m, 2h, 1d
  --overlap POLICY         a tick while the last session still runs: ${OVERLAP_POLICIES.join(', ')}
                           (default skip: nothing starts, and the skip is counted)
  --catchup-window DUR     after the server or the workers were down, a missed tick still runs if
                           it is at most this late (default 1h)
  --jitter DUR             a random delay up to DUR before each tick
  --note TEXT              with pause or unpause: why, shown in the listing and the Web UI
  --json                   with create or list: JSON out
${SESSION_OPTIONS_HELP}
${CONNECTION_HELP}`;

export const scheduleCommand: Command = {
  name: 'schedule',
  summary: 'run a task on a cron or an interval, a session per tick (Temporal Schedules)',
  help: HELP,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...CONNECTION_OPTIONS,
      ...SESSION_OPTIONS,
      cron: { type: 'string' },
      every: { type: 'string' },
      overlap: { type: 'string' },
      'catchup-window': { type: 'string' },
      jitter: { type: 'string' },
      note: { type: 'string' },
      json: { type: 'boolean' },
    });
    const action = actionOf(positionals[0]);
    const config = configWith(values);
    if (action === 'create') {
      // Checked in full before connecting: a bad field exits 2 even with no server.
      // A flag left out is undefined, which the schema reads as absent (and fills its default).
      const spec = parseScheduleSpec({
        name: requirePositional(positionals, 1, 'name'),
        cron: values.cron,
        every: values.every,
        overlap: values.overlap,
        catchupWindow: values['catchup-window'],
        jitter: values.jitter,
      });
      const request = sessionRequestOf(values, requirePositional(positionals, 2, 'task'), config);
      const input = resolveStart(request, { maxUserTextBytes: config.maxUserTextBytes, prices: config.prices });
      const schedules = new SessionSchedules(await connectClient(config));
      await schedules.create(spec, input);
      console.log(values.json ? JSON.stringify({ schedule: spec.name }) : spec.name);
      return ExitCode.ok;
    }
    const schedules = new SessionSchedules(await connectClient(config));
    if (action === 'list') {
      const rows = await schedules.list();
      console.log(values.json ? JSON.stringify(rows) : printable(renderSchedules(rows)));
      return ExitCode.ok;
    }
    const name = requirePositional(positionals, 1, 'name');
    try {
      if (action === 'pause') await schedules.pause(name, values.note);
      else if (action === 'unpause') await schedules.unpause(name, values.note);
      else if (action === 'trigger') await schedules.trigger(name);
      else await schedules.delete(name);
    } catch (error) {
      if (!(error instanceof ScheduleMissingError)) throw error;
      console.error(printable(`agentd schedule ${action}: ${error.message}`));
      return ExitCode.notFound;
    }
    console.error(printable(`${PAST_TENSE[action]} ${name}`));
    return ExitCode.ok;
  },
};

const PAST_TENSE: Readonly<Record<Exclude<Action, 'create' | 'list'>, string>> = {
  pause: 'paused',
  unpause: 'unpaused',
  trigger: 'triggered',
  delete: 'deleted',
};

function actionOf(word: string | undefined): Action {
  const action = ACTIONS.find((candidate) => candidate === word);
  if (action === undefined) throw new UsageError(`<action>: expected one of ${ACTIONS.join(', ')}, got ${word === undefined ? 'nothing' : `'${word}'`}`);
  return action;
}

function renderSchedules(rows: readonly ScheduleRow[]): string {
  if (rows.length === 0) return '(no schedules)';
  return rows
    .map((row) => {
      const state = row.paused ? `paused${row.note ? ` (${row.note})` : ''}` : `next ${row.nextRuns[0] ?? '-'}`;
      const last = row.recentSessions.at(-1);
      return `${row.name}  ${row.when}  ${state}${last ? `  last session ${last}` : ''}`;
    })
    .join('\n');
}
