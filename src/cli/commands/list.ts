/** `agentd list`: every agentSession the server knows, newest first, with live progress of running ones. */
import { connectClient, SessionClient } from '../../client/sessionClient';
import { WORKFLOW_TYPE } from '../../session/definitions';
import type { SessionState } from '../../session/state';
import { ExitCode, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, positiveInt } from '../args';
import { kTokens } from '../render';

interface SessionRow {
  sessionId: string;
  status: string;
  startedAt: string;
  step?: number;
  contextFill?: string;
}

export const listCommand: Command = {
  name: 'list',
  summary: 'list sessions',
  help: `usage: agentd list [--limit N] [--json]

Lists agentSession workflows, newest first: id, workflow status, start time, and for running
sessions their step and context fill.

  --limit N   at most N sessions (default 50)
  --json      one JSON array
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, { ...CONNECTION_OPTIONS, limit: { type: 'string' }, json: { type: 'boolean' } });
    const limit = positiveInt('limit', values.limit) ?? 50;
    const config = configWith(values);
    const client = await connectClient(config);
    const sessions = new SessionClient(client);
    const rows: SessionRow[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPE}'` })) {
      const row: SessionRow = {
        sessionId: execution.workflowId,
        status: execution.status.name,
        startedAt: execution.startTime.toISOString(),
      };
      if (execution.status.name === 'RUNNING') {
        const state = await sessions.state(execution.workflowId).catch(() => undefined);
        if (state) Object.assign(row, progressOf(state));
      }
      rows.push(row);
      if (rows.length >= limit) break;
    }
    if (values.json) console.log(JSON.stringify(rows, null, 2));
    else if (rows.length === 0) console.log('no sessions');
    else for (const row of rows) console.log(formatRow(row));
    return ExitCode.ok;
  },
};

function progressOf(state: SessionState): Pick<SessionRow, 'step' | 'contextFill'> {
  return {
    step: state.step,
    contextFill: `${kTokens(state.context.tokens)}/${kTokens(state.context.window)}`,
  };
}

function formatRow(row: SessionRow): string {
  const progress = row.step !== undefined ? `  step ${row.step}  context ${row.contextFill}` : '';
  return `${row.sessionId.padEnd(28)} ${row.status.padEnd(11)} ${row.startedAt}${progress}`;
}
