/** `agentd status <id>`: the session's `state` query, for people or (--json) for scripts. */
import { connectClient, SessionClient } from '../../client/sessionClient';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, requirePositional } from '../args';
import { renderState } from '../render';

export const statusCommand: Command = {
  name: 'status',
  summary: "show a session's state (query 'state')",
  help: `usage: agentd status <id> [--json]

Prints the session's state: status, turn and step, context estimate against its window, usage,
recent tool calls and warnings. A completed session's state is read from its result, so no worker
needs to be running; other closed sessions are replayed by a worker. Exit code 3 when no such
session exists, 4 when no worker answered the query (the server waits 30 s for one).

  --json   the raw state query result
${CONNECTION_HELP}`,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...CONNECTION_OPTIONS, json: { type: 'boolean' } });
    const sessionId = requirePositional(positionals, 0, 'id');
    const config = configWith(values);
    const sessions = new SessionClient(await connectClient(config));
    const state = await sessions.state(sessionId);
    console.log(values.json ? JSON.stringify(state, null, 2) : renderState(state));
    return ExitCode.ok;
  },
};
