/** `agentd watch <id>`: a live view of one session until it ends. */
import { connectClient, SessionClient } from '../../client/sessionClient';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, positiveInt, requirePositional } from '../args';
import { watchSession } from '../watch';

export const watchCommand: Command = {
  name: 'watch',
  summary: 'live view of one session: context gauge, steps, tool calls, compactions, spend',
  help: `usage: agentd watch <id> [--interval MS]

Polls the session's state query and shows a context gauge (tokens against the window, '|' where
auto-compaction starts), turn and step, the last tool calls, compaction notices as they happen,
tokens and cost so far, and why the session is paused when a budget guard tripped. On a terminal
the view is redrawn in place; otherwise changed lines are printed.

Exits when the session ends: 0 when it completed or was cancelled, 1 when it failed or its
workflow was terminated, 3 when no such session exists.

  --interval MS   poll every MS milliseconds (default 1000)
${CONNECTION_HELP}`,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...CONNECTION_OPTIONS, interval: { type: 'string' } });
    const sessionId = requirePositional(positionals, 0, 'id');
    const pollMs = positiveInt('interval', values.interval) ?? 1000;
    const config = configWith(values);
    const sessions = new SessionClient(await connectClient(config));
    const out = {
      write: (text: string) => void process.stdout.write(text),
      isTTY: process.stdout.isTTY === true,
      ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    };
    const state = await watchSession((id) => sessions.state(id), sessionId, out, { pollMs });
    // A terminated or timed-out workflow is a failure too.
    return state.status === 'completed' || state.status === 'cancelled' ? ExitCode.ok : ExitCode.failure;
  },
};
