/** `agentd cancel <id>`: asks Temporal to cancel the session; running tools are stopped. */
import { connectClient, SessionClient } from '../../client/sessionClient';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, requirePositional } from '../args';
import { printable } from '../printable';

export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel a running session',
  help: `usage: agentd cancel <id>

Requests cancellation; the session stops at its next await and its transcript stays in the store.
${CONNECTION_HELP}`,
  async run(argv) {
    const { values, positionals } = parse(argv, CONNECTION_OPTIONS);
    const sessionId = requirePositional(positionals, 0, 'id');
    const config = configWith(values);
    const sessions = new SessionClient(await connectClient(config));
    await sessions.handle(sessionId).cancel();
    console.error(printable(`cancellation requested for ${sessionId}`));
    return ExitCode.ok;
  },
};
