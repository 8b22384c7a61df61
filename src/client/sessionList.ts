/**
 * The fleet from Temporal's visibility index: one `listWorkflowExecutions` query per page, each
 * row read from the session's search attributes (session/searchAttributes.ts). No session is asked
 * a query, so the list answers at the same speed with no worker up and with a thousand sessions.
 */
import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { WORKFLOW_TYPE } from '../session/definitions';
import { AgentdContextFill, AgentdCostUsd, AgentdModel, AgentdStatus, AgentdStep } from '../session/searchAttributes';
import { SessionStatus } from '../session/state';

const ExecutionStatus = temporal.api.enums.v1.WorkflowExecutionStatus;

/** A closed session's status, from Temporal's own: the attribute may predate its end (terminate, timeout). */
const CLOSED_STATUS = {
  COMPLETED: SessionStatus.completed,
  FAILED: SessionStatus.failed,
  CANCELLED: SessionStatus.cancelled,
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
} as const;

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
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export interface SessionListFilter {
  /** One of LISTED_STATUSES. */
  status?: string;
  /** The model name exactly. */
  model?: string;
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
    sessions: response.executions.map(summaryOf),
    ...(token && token.length > 0 ? { nextPageToken: token } : {}),
  };
}

/**
 * The visibility query of `filter`. Runs that continued as new are left out: their session goes
 * on in a newer run. Running states also require a running execution, so a session terminated
 * while paused (its attribute still says waiting_for_approval) is not listed as paused.
 */
export function sessionListQuery(filter: Pick<SessionListFilter, 'status' | 'model'>): string {
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`, `ExecutionStatus != 'ContinuedAsNew'`];
  if (filter.status !== undefined) clauses.push(...statusClauses(filter.status));
  if (filter.model !== undefined) clauses.push(`${AgentdModel.name} = ${quoted('model', filter.model)}`);
  return clauses.join(' AND ');
}

function statusClauses(status: string): string[] {
  switch (status) {
    case SessionStatus.running:
    case SessionStatus.waitingForMessage:
    case SessionStatus.waitingForApproval:
      return [`${AgentdStatus.name} = '${status}'`, `ExecutionStatus = 'Running'`];
    case CLOSED_STATUS.COMPLETED:
      return [`ExecutionStatus = 'Completed'`];
    case CLOSED_STATUS.FAILED:
      return [`ExecutionStatus = 'Failed'`];
    case CLOSED_STATUS.CANCELLED:
      return [`ExecutionStatus = 'Canceled'`];
    case CLOSED_STATUS.TERMINATED:
      return [`ExecutionStatus = 'Terminated'`];
    case CLOSED_STATUS.TIMED_OUT:
      return [`ExecutionStatus = 'TimedOut'`];
    default:
      quoted('status', status);
      throw new SessionListFilterError('status', `unknown status '${status}'; one of ${LISTED_STATUSES.join(', ')}`);
  }
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

type RawExecution = temporal.api.workflow.v1.IWorkflowExecutionInfo;

function summaryOf(raw: RawExecution): SessionSummary {
  const attributes = decodeTypedSearchAttributes(raw.searchAttributes?.indexedFields);
  const runStatus = runStatusName(raw.status);
  const step = attributes.get(AgentdStep);
  const contextFill = attributes.get(AgentdContextFill);
  const costUsd = attributes.get(AgentdCostUsd);
  const model = attributes.get(AgentdModel);
  const closedAt = isoTime(raw.closeTime);
  return SessionSummarySchema.parse({
    sessionId: raw.execution?.workflowId ?? '',
    runId: raw.execution?.runId ?? '',
    runStatus,
    status: statusOf(runStatus, attributes.get(AgentdStatus)),
    ...(step !== undefined ? { step } : {}),
    ...(contextFill !== undefined ? { contextFill } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(model !== undefined ? { model } : {}),
    startedAt: isoTime(raw.startTime) ?? new Date(0).toISOString(),
    ...(closedAt !== undefined ? { closedAt } : {}),
  });
}

function statusOf(runStatus: SessionSummary['runStatus'], attribute: string | undefined): ListedStatus {
  if (runStatus in CLOSED_STATUS) return CLOSED_STATUS[runStatus as keyof typeof CLOSED_STATUS];
  const running: readonly string[] = [SessionStatus.running, SessionStatus.waitingForMessage, SessionStatus.waitingForApproval];
  return attribute !== undefined && running.includes(attribute) ? (attribute as ListedStatus) : SessionStatus.running;
}

function runStatusName(code: temporal.api.enums.v1.WorkflowExecutionStatus | null | undefined): SessionSummary['runStatus'] {
  switch (code) {
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING:
      return 'RUNNING';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED:
      return 'COMPLETED';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED:
      return 'FAILED';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED:
      return 'CANCELLED';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED:
      return 'TERMINATED';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
      return 'CONTINUED_AS_NEW';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
      return 'TIMED_OUT';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_PAUSED:
      return 'PAUSED';
    case ExecutionStatus.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED:
      return 'UNSPECIFIED';
    default:
      return 'UNKNOWN';
  }
}

function isoTime(timestamp: temporal.api.workflow.v1.IWorkflowExecutionInfo['startTime']): string | undefined {
  if (!timestamp) return undefined;
  const { seconds } = timestamp;
  const whole = seconds == null ? 0 : typeof seconds === 'number' ? seconds : seconds.toNumber();
  return new Date(whole * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6)).toISOString();
}
