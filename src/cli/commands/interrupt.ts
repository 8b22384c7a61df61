/** `agentd interrupt <id>`: cuts off the step in flight and keeps the session (update `interrupt`). */
import { InterruptRequestSchema } from '../../session/definitions';
import { SessionInputError } from '../../session/input';
import { describeZodError } from '../../session/validation';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, requirePositional } from '../args';
import { printable } from '../printable';

export const interruptCommand: Command = {
  name: 'interrupt',
  summary: 'stop the model call or tool calls in flight and keep the session (update "interrupt")',
  help: `usage: agentd interrupt <id> --reason TEXT [--continue] [--json]

Cancels the session's model call or tool calls in flight; they stop within seconds (the activities
heartbeat). Every tool call of the step without a result gets one saying it was interrupted and its
effect is unknown, as a crash leaves it; nothing is run again. The model is told, and the session
then waits for 'agentd send' (however long it takes), or with --continue goes on with the turn.
Refused (exit 1) when no model call or tool call is in flight, e.g. while the session compacts or
waits. Cancel the whole session with 'agentd cancel <id>'.

  --reason TEXT   why; kept in the state's warnings and told to the model
  --continue      go on with the turn instead of waiting for a message
  --json          print {"step", "cut", "continued"} as JSON
${CONNECTION_HELP}`,
  async run(argv) {
    const { values, positionals } = parse(argv, { ...CONNECTION_OPTIONS, reason: { type: 'string' }, continue: { type: 'boolean' }, json: { type: 'boolean' } });
    const sessionId = requirePositional(positionals, 0, 'id');
    // The workflow's validator refuses the same; checking here names a bad field without a server.
    const checked = InterruptRequestSchema.safeParse({ reason: values.reason ?? '', ...(values.continue ? { continue: true } : {}) });
    if (!checked.success) throw new SessionInputError(`invalid interrupt: ${describeZodError(checked.error)}`, { cause: checked.error });
    const { WorkflowUpdateFailedError } = await import('@temporalio/client');
    const { connectClient, SessionClient } = await import('../../client/sessionClient.js');
    const sessions = new SessionClient(await connectClient(configWith(values)));
    let result;
    try {
      result = await sessions.interrupt(sessionId, checked.data);
    } catch (error) {
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      console.error(printable(`agentd interrupt: refused: ${error.cause?.message ?? error.message}`));
      return ExitCode.failure;
    }
    const next = result.continued ? 'the turn goes on' : `it waits for a message (agentd send ${sessionId} …)`;
    console.log(values.json ? JSON.stringify(result) : printable(`interrupted step ${result.step} of ${sessionId} (${result.cut} cut off); ${next}`));
    return ExitCode.ok;
  },
};
