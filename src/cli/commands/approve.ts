/** `agentd approve <id>`: lets a session paused by a budget guard go on, with raised limits (update `approve`). */
import { ApproveRequestSchema, type ApproveRequest } from '../../policy/budget';
import { SessionInputError } from '../../session/input';
import { describeZodError } from '../../session/validation';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, positiveInt, positiveNumber, requirePositional } from '../args';
import { printable } from '../printable';

export const approveCommand: Command = {
  name: 'approve',
  summary: 'let a session paused by a budget guard go on (update "approve")',
  help: `usage: agentd approve <id> [--max-steps N] [--max-total-tokens N] [--max-cost-usd X] [--max-repeated-tool-calls N] [--json]

A session whose budget guard tripped is waiting_for_approval ('agentd status' says why) and makes
no model calls. Approving raises the limits given (the others stay) and lets it go on; a repeated
tool call is acknowledged by approving, its count starts over. The approval is refused (exit 1)
when the session is not paused or the new limits would leave it exhausted; the message names the
limit to raise. Stop a paused session with 'agentd cancel <id>'.

  --max-steps N              new step limit (must be above the steps taken when that guard tripped)
  --max-total-tokens N       new limit of billed tokens
  --max-cost-usd X           new spend limit in USD
  --max-repeated-tool-calls N
  --json                     print the budget now in force as JSON
${CONNECTION_HELP}`,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...CONNECTION_OPTIONS,
      'max-steps': { type: 'string' },
      'max-total-tokens': { type: 'string' },
      'max-cost-usd': { type: 'string' },
      'max-repeated-tool-calls': { type: 'string' },
      json: { type: 'boolean' },
    });
    const sessionId = requirePositional(positionals, 0, 'id');
    const request: ApproveRequest = {};
    const maxSteps = positiveInt('max-steps', values['max-steps']);
    if (maxSteps !== undefined) request.maxSteps = maxSteps;
    const maxTotalTokens = positiveInt('max-total-tokens', values['max-total-tokens']);
    if (maxTotalTokens !== undefined) request.maxTotalTokens = maxTotalTokens;
    const maxCostUsd = positiveNumber('max-cost-usd', values['max-cost-usd']);
    if (maxCostUsd !== undefined) request.maxCostUsd = maxCostUsd;
    const maxRepeated = positiveInt('max-repeated-tool-calls', values['max-repeated-tool-calls']);
    if (maxRepeated !== undefined) request.maxRepeatedToolCalls = maxRepeated;
    // The workflow's validator applies the same schema; checking here names a bad field without a server.
    const checked = ApproveRequestSchema.safeParse(request);
    if (!checked.success) throw new SessionInputError(`invalid approval: ${describeZodError(checked.error)}`, { cause: checked.error });
    const config = configWith(values);
    const { WorkflowUpdateFailedError } = await import('@temporalio/client');
    const { connectClient, SessionClient } = await import('../../client/sessionClient.js');
    const sessions = new SessionClient(await connectClient(config));
    let budget;
    try {
      ({ budget } = await sessions.approve(sessionId, request));
    } catch (error) {
      // The validator's reason (not paused, limit still exhausted) is the cause; say it plainly.
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      console.error(printable(`agentd approve: refused: ${error.cause?.message ?? error.message}`));
      return ExitCode.failure;
    }
    if (values.json) console.log(JSON.stringify(budget, null, 2));
    else {
      const limits = [`maxSteps ${budget.maxSteps}`];
      if (budget.maxTotalTokens !== undefined) limits.push(`maxTotalTokens ${budget.maxTotalTokens}`);
      if (budget.maxCostUsd !== undefined) limits.push(`maxCostUsd ${budget.maxCostUsd}`);
      limits.push(`maxRepeatedToolCalls ${budget.maxRepeatedToolCalls}`);
      console.log(`approved ${sessionId}: ${limits.join(', ')}`);
    }
    return ExitCode.ok;
  },
};
