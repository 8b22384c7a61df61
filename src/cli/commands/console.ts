/** `agentd console`: the operator's web console (src/console), over the client API the other commands use. */
import { once } from 'node:events';
import { ConsoleSettingsSchema, ConsoleTokenError, CONSOLE_TOKEN_ENV, DEFAULT_CONSOLE_HOST, DEFAULT_CONSOLE_PORT, readConsoleToken } from '../../console/settings';
import { SessionInputError } from '../../session/input';
import { describeZodError } from '../../session/validation';
import { ExitCode, UsageError, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, wholeNumber } from '../args';

export const consoleCommand: Command = {
  name: 'console',
  summary: 'serve the web console: the fleet and each session in a browser',
  help: `usage: agentd console [--port N] [--host ADDR] [--token-file PATH]

Serves the operator's console: a fleet page (every session, filters by status and model, a context
gauge, cost, why paused; refreshed every few seconds) and a page per session (context chart,
compaction notices, session memory, transcript from the store, and the controls: send, compact
now, approve, cancel). Reads the same settings as the other commands (TEMPORAL_*, AGENTD_STORE).

  --host ADDR        address to listen on (default ${DEFAULT_CONSOLE_HOST}: this machine only)
  --port N           port (default ${DEFAULT_CONSOLE_PORT}; 0 picks a free one)
  --token-file PATH  the console token, first line of the file (else env ${CONSOLE_TOKEN_ENV})

Any address other than loopback needs a token (16 characters or more). Every request must then
carry it: open the printed address once with ?token=<the token> appended (it sets an HttpOnly,
SameSite=Strict cookie; the token itself is never printed), or send 'Authorization: Bearer <token>'. Controls are POSTs of JSON from the console's own
origin; the pages load no script or style from anywhere else.
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, { ...CONNECTION_OPTIONS, host: { type: 'string' }, port: { type: 'string' }, 'token-file': { type: 'string' } });
    let token: string | undefined;
    try {
      token = readConsoleToken(process.env, values['token-file']);
    } catch (error) {
      if (error instanceof ConsoleTokenError) throw new UsageError(error.message, { cause: error });
      throw error;
    }
    const checked = ConsoleSettingsSchema.safeParse({
      host: values.host ?? DEFAULT_CONSOLE_HOST,
      port: wholeNumber('port', values.port) ?? DEFAULT_CONSOLE_PORT,
      ...(token !== undefined ? { token } : {}),
    });
    if (!checked.success) throw new SessionInputError(`invalid console settings: ${describeZodError(checked.error)}`, { cause: checked.error });
    const config = configWith(values);
    const { connectClient, SessionClient } = await import('../../client/sessionClient.js');
    const { openStore } = await import('../../store/openStore.js');
    const { startConsole } = await import('../../console/server.js');
    const client = await connectClient(config);
    const store = await openStore(config.store);
    const sessions = new SessionClient(client, config.prices, { maxUserTextBytes: config.maxUserTextBytes });
    const running = await startConsole({ client, sessions, store }, checked.data);
    // The token itself is never printed: a console run as a service writes its output to a log.
    const login = token === undefined ? '' : ` (log a browser in once with ${running.baseUrl}?token=<the token>)`;
    // Listening before the line that says it is up: a Ctrl-C right after that line stops it cleanly.
    const stopped = Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
    console.log(`agentd console on ${running.baseUrl}${login}`);
    await stopped;
    await running.close();
    await store.close();
    await client.connection.close();
    return ExitCode.ok;
  },
};
