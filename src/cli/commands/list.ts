/** `agentd list`: agentSession workflows from Temporal's visibility index, newest first, filtered by status or model. */
import { connectClient } from '../../client/sessionClient';
import { LISTED_STATUSES, listSessions, SessionListFilterError, type SessionSummary } from '../../client/sessionList';
import { ExitCode, UsageError, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, positiveInt } from '../args';
import { renderSessionTable } from '../renderList';
import { printable } from '../printable';

/** The most sessions one page asks for: the dev server's own limit. */
const MAX_PAGE = 1_000;

export const listCommand: Command = {
  name: 'list',
  summary: 'list sessions with status, steps, context fill, cost and model',
  help: `usage: agentd list [--status S] [--model M] [--parent ID] [--limit N] [--json]

Lists agentSession workflows, newest first: id, status, steps, context fill, cost, model and
start time. Everything comes from the sessions' search attributes in Temporal's visibility index
in one query per page of up to ${MAX_PAGE}, so no session (and no worker) is asked anything; the
index may lag a session by a moment. A dash means the session never set the figure (started by
an older agentd). Needs the attributes registered (agentd search-attributes). A child session
(started by a parent's delegate call) is listed under its parent, marked └.

  --status S   only sessions in status S: ${LISTED_STATUSES.join(', ')}
  --model M    only sessions of model M
  --parent ID  only the children session ID started
  --limit N    at most N sessions (default 50)
  --json       one JSON array of session summaries
${CONNECTION_HELP}`,
  async run(argv) {
    const { values } = parse(argv, {
      ...CONNECTION_OPTIONS,
      status: { type: 'string' },
      model: { type: 'string' },
      parent: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    });
    const limit = positiveInt('limit', values.limit) ?? 50;
    const client = await connectClient(configWith(values));
    const sessions: SessionSummary[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await listSessions(client, {
        ...(values.status !== undefined ? { status: values.status } : {}),
        ...(values.model !== undefined ? { model: values.model } : {}),
        ...(values.parent !== undefined ? { parent: values.parent } : {}),
        pageSize: Math.min(MAX_PAGE, limit - sessions.length),
        ...(nextPageToken ? { nextPageToken } : {}),
      }).catch(flagError);
      sessions.push(...page.sessions.slice(0, limit - sessions.length));
      nextPageToken = page.nextPageToken;
    } while (nextPageToken && sessions.length < limit);
    console.log(values.json ? JSON.stringify(sessions, null, 2) : printable(renderSessionTable(sessions)));
    return ExitCode.ok;
  },
};

/** A refused filter value is bad input: name the flag it came from. */
function flagError(error: unknown): never {
  if (error instanceof SessionListFilterError) throw new UsageError(`--${error.message}`, { cause: error });
  throw error;
}
