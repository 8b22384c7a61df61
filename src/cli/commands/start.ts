/** `agentd start`: validate a session's input, start it, and optionally follow it to the end. */
import { resolveStart } from '../../session/resolve';
import { ExitCode, UsageError, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, requirePositional } from '../args';
import { SESSION_OPTIONS, SESSION_OPTIONS_HELP, sessionRequestOf } from '../sessionOptions';
import { renderResult } from '../render';
import { sessionIdProblem } from '../../session/sessionId';

const HELP = `usage: agentd start <task> [options]

Starts an agent session (workflow agentSession, task queue agentd) and prints its id.
The input is validated before anything is sent; a bad field is named and nothing starts.

${SESSION_OPTIONS_HELP}
  --id ID                  session id (default agent-<random>): letters, digits, '.', '_', '-', ':', starting
                           with a letter or digit, at most 128 characters; an id already used is refused
  --replace-closed         with --id: take over the id of a session that has ended (its transcript is
                           kept as <id>@<run>); a running session is never replaced
  --follow                 print progress until the session ends; exit 0 when it completes, 1 when it fails
  --json                   print {"sessionId": …} (with --follow: the result) as JSON
${CONNECTION_HELP}`;

export const startCommand: Command = {
  name: 'start',
  summary: 'start an agent session on a task',
  help: HELP,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...CONNECTION_OPTIONS,
      ...SESSION_OPTIONS,
      id: { type: 'string' },
      'replace-closed': { type: 'boolean' },
      follow: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (values.id !== undefined) {
      const problem = sessionIdProblem(values.id);
      if (problem !== undefined) throw new UsageError(`--id: ${problem}`);
    }
    if (values['replace-closed'] && values.id === undefined) throw new UsageError('--replace-closed: needs --id (a new random id is never taken)');
    const config = configWith(values);
    const request = sessionRequestOf(values, requirePositional(positionals, 0, 'task'), config);
    // Checked and resolved in full before connecting: a bad field exits 2 even with no server.
    const ids = values.id !== undefined ? { sessionId: values.id } : {};
    const input = resolveStart(request, { ...ids, maxUserTextBytes: config.maxUserTextBytes, prices: config.prices });
    const { connectClient, SessionClient } = await import('../../client/sessionClient.js');
    const sessions = new SessionClient(await connectClient(config), config.prices, { maxUserTextBytes: config.maxUserTextBytes });
    const handle = await sessions.start(input, { ...ids, ...(values['replace-closed'] ? { replaceClosed: true } : {}) });
    if (!values.follow) {
      console.log(values.json ? JSON.stringify({ sessionId: handle.workflowId }) : handle.workflowId);
      return ExitCode.ok;
    }
    const print = values.json ? () => undefined : (line: string) => console.error(line);
    const { followSession } = await import('../follow.js');
    const result = await followSession(sessions, handle.workflowId, print);
    console.log(values.json ? JSON.stringify(result) : renderResult(result));
    return ExitCode.ok;
  },
};

