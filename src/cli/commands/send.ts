/** `agentd send [--now] <id> <text>`: a user message for the session's next turn, or its next model call (signal 'message'). */
import { connectClient, SessionClient } from '../../client/sessionClient';
import { MessageSignalSchema } from '../../session/definitions';
import { describeZodError } from '../../session/validation';
import { ExitCode, UsageError, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, requirePositional } from '../args';
import { printable } from '../printable';

export const sendCommand: Command = {
  name: 'send',
  summary: 'send a user message to a session (signal "message")',
  help: `usage: agentd send [--now] <id> <text>

Queues a user message; the session answers it in its next turn (right away when it is waiting
for messages). Exit code 3 when no such session exists.

  --now    steer: the message enters the context before the next model call of the turn in
           progress, as a user message, instead of waiting for the turn to end
${CONNECTION_HELP}`,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...CONNECTION_OPTIONS, now: { type: 'boolean' } });
    const sessionId = requirePositional(positionals, 0, 'id');
    const message = MessageSignalSchema.safeParse({ text: positionals.slice(1).join(' '), ...(values.now ? { now: true } : {}) });
    if (!message.success) throw new UsageError(`<text>: ${describeZodError(message.error)}`);
    const config = configWith(values);
    const sessions = new SessionClient(await connectClient(config), config.prices, { maxUserTextBytes: config.maxUserTextBytes });
    await sessions.send(sessionId, message.data.text, { now: message.data.now === true });
    console.error(printable(`sent to ${sessionId}${message.data.now ? ' for its next model call' : ''}`));
    return ExitCode.ok;
  },
};
