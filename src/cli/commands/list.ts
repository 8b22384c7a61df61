/** `agentd list`: every agentSession the server knows, newest first, with status, steps, context fill and cost. */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { connectClient, SessionClient } from '../../client/sessionClient';
import { WORKFLOW_TYPE } from '../../session/definitions';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, positiveInt } from '../args';
import { renderSessionTable, rowFromResult, rowFromState, type SessionRow } from '../renderList';
import { printable } from '../printable';

export const listCommand: Command = {
  name: 'list',
  summary: 'list sessions with status, steps, context fill and cost',
  help: `usage: agentd list [--limit N] [--json]

Lists agentSession workflows, newest first: id, status, steps, context fill, cost and start time.
Running sessions answer the state query (so a paused one shows waiting_for_approval and why),
each given 5 s, since with no worker up nobody answers; completed ones are read from their
result. A dash means the session could not say.

  --limit N   at most N sessions (default 50)
  --json      one JSON array
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, { ...CONNECTION_OPTIONS, limit: { type: 'string' }, json: { type: 'boolean' } });
    const limit = positiveInt('limit', values.limit) ?? 50;
    const config = configWith(values);
    const client = await connectClient(config);
    const sessions = new SessionClient(client);
    const executions: WorkflowExecutionInfo[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPE}'` })) {
      executions.push(execution);
      if (executions.length >= limit) break;
    }
    const rows = await Promise.all(executions.map((execution) => rowOf(sessions, execution)));
    console.log(values.json ? JSON.stringify(rows, null, 2) : printable(renderSessionTable(rows)));
    return ExitCode.ok;
  },
};

/**
 * Running sessions get a short wait for their state query: with no worker up, the server's 30 s
 * for each would leave the list hanging; their row then shows what the server knows.
 */
const RUNNING_STATE_WAIT_MS = 5_000;

async function rowOf(sessions: SessionClient, execution: WorkflowExecutionInfo): Promise<SessionRow> {
  const base = { sessionId: execution.workflowId, status: execution.status.name, startedAt: execution.startTime.toISOString() };
  if (execution.status.name === 'RUNNING') {
    const state = await sessions.queryState(execution.workflowId, { waitMs: RUNNING_STATE_WAIT_MS }).catch(() => undefined);
    return state ? rowFromState(base, state) : base;
  }
  if (execution.status.name === 'COMPLETED') {
    const result = await sessions.result(execution.workflowId).catch(() => undefined);
    return result ? rowFromResult(base, result) : base;
  }
  return base;
}
