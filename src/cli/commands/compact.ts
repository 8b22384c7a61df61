/** `agentd compact <id>`: a manual compaction — signal `compact`, or with --wait update `compactNow`. */
import { connectClient, SessionClient } from '../../client/sessionClient';
import { compactNowUpdate, compactSignal } from '../../session/definitions';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, requirePositional } from '../args';
import { renderNotice } from '../render';
import { printable } from '../printable';

export const compactCommand: Command = {
  name: 'compact',
  summary: 'compact a session\'s context now (signal "compact" / update "compactNow")',
  help: `usage: agentd compact <id> [--wait] [--json]

Asks the session for a manual compaction. It runs before the next model call, or at once when
the session is waiting for a message; it runs even when the circuit breaker is open, and its
success closes the breaker.

  --wait   wait for the compaction and print what it did (update compactNow); exit 1 when it
           failed or there was nothing to compact
  --json   with --wait: the raw result
${CONNECTION_HELP}`,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...CONNECTION_OPTIONS, wait: { type: 'boolean' }, json: { type: 'boolean' } });
    const sessionId = requirePositional(positionals, 0, 'id');
    const config = configWith(values);
    const handle = new SessionClient(await connectClient(config)).handle(sessionId);
    if (!values.wait) {
      await handle.signal(compactSignal);
      console.error(printable(`compaction requested for ${sessionId}`));
      return ExitCode.ok;
    }
    const result = await handle.executeUpdate(compactNowUpdate);
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else if (result.notice) console.log(renderNotice(result.notice));
    else console.log(`nothing compacted (${result.reason ?? 'no reason given'})`);
    return result.compacted ? ExitCode.ok : ExitCode.failure;
  },
};
