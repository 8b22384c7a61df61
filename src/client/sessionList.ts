/**
 * The fleet from Temporal's visibility index: one `listWorkflowExecutions` query per page, each
 * row read from the session's search attributes (session/searchAttributes.ts). No session is asked
 * a query, so the list answers at the same speed with no worker up and with a thousand sessions.
 */
import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { z } from 'zod';
import { WORKFLOW_TYPE } from '../session/definitions';
import { AgentdContextFill, AgentdCostUsd, AgentdModel, AgentdStatus, AgentdStep } from '../session/searchAttributes';
import { SessionStatus } from '../session/state';
import { visibilityRowOf, type VisibilityRow } from './visibilityRow';

/** A closed session's status, from Temporal's own: the attribute may predate its end (terminate, timeout). */
const CLOSED_STATUS = {
  COMPLETED: SessionStatus.completed,
  FAILED: SessionStatus.failed,
  CANCELLED: SessionStatus.cancelled,
  TERMINATED: SessionStatus.terminated,
  TIMED_OUT: SessionStatus.timedOut,
} as const;

/** Each closed status as the visibility query spells the execution status it comes from. */
const CLOSED_QUERY_STATUS: Readonly<Record<(typeof CLOSED_STATUS)[keyof typeof CLOSED_STATUS], string>> = {
  [CLOSED_STATUS.COMPLETED]: 'Completed',
  [CLOSED_STATUS.FAILED]: 'Failed',
  [CLOSED_STATUS.CANCELLED]: 'Canceled',
  [CLOSED_STATUS.TERMINATED]: 'Terminated',
  [CLOSED_STATUS.TIMED_OUT]: 'TimedOut',
};

const RUNNING_STATUSES: readonly string[] = [SessionStatus.running, SessionStatus.waitingForMessage, SessionStatus.waitingForApproval];

/** Every status a summary can carry, and `--status` accepts. */
export const LISTED_STATUSES = [
  SessionStatus.running,
  SessionStatus.waitingForMessage,
  SessionStatus.waitingForApproval,
  ...Object.values(CLOSED_STATUS),
] as const;
export type ListedStatus = (typeof LISTED_STATUSES)[number];

const RUN_STATUSES = ['UNSPECIFIED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT', 'PAUSED', 'UNKNOWN'] as const satisfies readonly WorkflowExecutionStatusName[];

/** One session as the fleet list shows it; plain JSON (times as ISO strings), so `--json` and the console can pass it on. */
export const SessionSummarySchema = z.object({
  sessionId: z.string(),
  runId: z.string(),
  /** Temporal's status of the workflow run. */
  runStatus: z.enum(RUN_STATUSES),
  /** AgentdStatus while running (`running` when not set yet); derived from `runStatus` once closed. */
  status: z.enum(LISTED_STATUSES),
  /**
   * The search attributes; absent on sessions that never set them (started by code older than
   * the attributes, or by the stock CLI and not yet picked up by a worker).
   */
  step: z.number().int().nonnegative().optional(),
  /** Estimated context tokens over the window, 0..1, rounded to 2 decimals. */
  contextFill: z.number().nonnegative().optional(),
  /** Spend in US dollars, rounded to cents. */
  costUsd: z.number().nonnegative().optional(),
  model: z.string().optional(),
  startedAt: z.string(),
  closedAt: z.string().optional(),
  /** The session that started this one with `delegate`. */
  parentSessionId: z.string().optional(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export interface SessionListFilter {
  /** One of LISTED_STATUSES. */
  status?: string;
  /** The model name exactly. */
  model?: string;
  /** Only the children this session started with `delegate`. */
  parent?: string;
  /** Sessions per page (the server's default, 1,000 on the dev server, when absent). */
  pageSize?: number;
  /** The token of the page before, to read the next one. */
  nextPageToken?: Uint8Array;
}

export interface SessionPage {
  sessions: SessionSummary[];
  /** Set when there are more sessions: pass it back to read the next page. */
  nextPageToken?: Uint8Array;
}

/** A filter value that cannot go into a visibility query; `field` names the filter (`status`, `model`). */
export class SessionListFilterError extends Error {
  constructor(
    readonly field: keyof SessionListFilter,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'SessionListFilterError';
  }
}

/** One page of agentSession workflows, newest first, matching `filter`. */
export async function listSessions(client: Client, filter: SessionListFilter = {}): Promise<SessionPage> {
  const query = sessionListQuery(filter);
  if (filter.pageSize !== undefined && (!Number.isInteger(filter.pageSize) || filter.pageSize <= 0)) {
    throw new SessionListFilterError('pageSize', `expected a positive whole number, got ${filter.pageSize}`);
  }
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query,
    ...(filter.pageSize !== undefined ? { pageSize: filter.pageSize } : {}),
    ...(filter.nextPageToken !== undefined ? { nextPageToken: filter.nextPageToken } : {}),
  });
  const token = response.nextPageToken;
  return {
    sessions: response.executions.map((raw) => summaryOf(visibilityRowOf(raw))),
    ...(token && token.length > 0 ? { nextPageToken: token } : {}),
  };
}

/**
 * The visibility query of `filter`. Runs that continued as new are left out: their session goes
 * on in a newer run. Running states also require a running execution, so a session terminated
 * while paused (its attribute still says waiting_for_approval) is not listed as paused.
 */
export function sessionListQuery(filter: Pick<SessionListFilter, 'status' | 'model' | 'parent'>): string {
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`, `ExecutionStatus != 'ContinuedAsNew'`];
  if (filter.status !== undefined) clauses.push(...statusClauses(filter.status));
  if (filter.model !== undefined) clauses.push(`${AgentdModel.name} = ${quoted('model', filter.model)}`);
  // A system attribute of Temporal's: set on every child workflow, so the stock CLI can ask it too.
  if (filter.parent !== undefined) clauses.push(`ParentWorkflowId = ${quoted('parent', filter.parent)}`);
  return clauses.join(' AND ');
}

function statusClauses(status: string): string[] {
  if (RUNNING_STATUSES.includes(status)) return [`${AgentdStatus.name} = '${status}'`, `ExecutionStatus = 'Running'`];
  const closed = Object.hasOwn(CLOSED_QUERY_STATUS, status) ? CLOSED_QUERY_STATUS[status as keyof typeof CLOSED_QUERY_STATUS] : undefined;
  if (closed !== undefined) return [`ExecutionStatus = '${closed}'`];
  quoted('status', status);
  throw new SessionListFilterError('status', `unknown status '${status}'; one of ${LISTED_STATUSES.join(', ')}`);
}

/**
 * A string literal for the query. Quotes and backslashes are refused rather than escaped: no model
 * name or status has them, and the visibility parsers of the SQL and Elasticsearch stores do not
 * agree on escapes, so a refused value is the only one certain not to change the query.
 */
function quoted(field: keyof SessionListFilter, value: string): string {
  if (value.length === 0) throw new SessionListFilterError(field, 'must not be empty');
  if (/['"`\\]/.test(value)) throw new SessionListFilterError(field, `must not contain quotes or backslashes, got ${JSON.stringify(value)}`);
  if (/[\u0000-\u001f]/.test(value)) throw new SessionListFilterError(field, 'must not contain control characters');
  return `'${value}'`;
}

function summaryOf(row: VisibilityRow): SessionSummary {
  const step = row.attributes.get(AgentdStep.name);
  const contextFill = row.attributes.get(AgentdContextFill.name);
  const costUsd = row.attributes.get(AgentdCostUsd.name);
  const model = row.attributes.get(AgentdModel.name);
  const status = row.attributes.get(AgentdStatus.name);
  const runStatus = (RUN_STATUSES as readonly string[]).includes(row.status) ? row.status : 'UNKNOWN';
  // Parsed by the schema: an attribute of the wrong type (set by hand with another type) is an error naming it.
  return SessionSummarySchema.parse({
    sessionId: row.workflowId,
    runId: row.runId,
    runStatus,
    status: statusOf(runStatus, typeof status === 'string' ? status : undefined),
    ...(step !== undefined ? { step } : {}),
    ...(contextFill !== undefined ? { contextFill } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(model !== undefined ? { model } : {}),
    startedAt: row.startTime.toISOString(),
    ...(row.closeTime !== undefined ? { closedAt: row.closeTime.toISOString() } : {}),
    ...(row.parentWorkflowId !== undefined ? { parentSessionId: row.parentWorkflowId } : {}),
  });
}

function statusOf(runStatus: string, attribute: string | undefined): ListedStatus {
  if (Object.hasOwn(CLOSED_STATUS, runStatus)) return CLOSED_STATUS[runStatus as keyof typeof CLOSED_STATUS];
  return attribute !== undefined && RUNNING_STATUSES.includes(attribute) ? (attribute as ListedStatus) : SessionStatus.running;
}
