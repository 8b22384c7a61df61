/**
 * The fleet as Temporal's visibility index sees it: one `listWorkflowExecutions` call per page, the
 * session's figures read from the typed search attributes its workflow keeps (`session/searchAttributes`),
 * so listing never asks a running session anything.
 */
import type { Client } from '@temporalio/client';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { temporal } from '@temporalio/proto';
import { WORKFLOW_TYPE } from '../session/definitions';
import { AgentdContextFill, AgentdCostUsd, AgentdModel, AgentdStatus, AgentdStep } from '../session/searchAttributes';

export interface SessionSummary {
  sessionId: string;
  /** Temporal's execution status, lower case: running, completed, failed, cancelled, terminated… */
  runStatus: string;
  /** AgentdStatus while running; the run status once closed (or while no attribute was set yet). */
  status: string;
  step: number;
  /** Context tokens of the last request over the window, 0..1. */
  contextFill: number;
  costUsd: number;
  model: string;
  startedAt: string;
  closedAt?: string;
}

export interface SessionListFilter {
  status?: string;
  model?: string;
  pageSize?: number;
  nextPageToken?: Uint8Array;
}

const DEFAULT_PAGE_SIZE = 50;

/** A visibility query of agentd sessions; status and model filter on the search attributes. */
export function sessionListQuery(filter: Pick<SessionListFilter, 'status' | 'model'>): string {
  const terms = [`WorkflowType = ${quote(WORKFLOW_TYPE)}`];
  if (filter.status !== undefined) terms.push(`${AgentdStatus.name} = ${quote(filter.status)}`);
  if (filter.model !== undefined) terms.push(`${AgentdModel.name} = ${quote(filter.model)}`);
  return terms.join(' AND ');
}

/** One page of sessions, newest first (the index's order); pass `nextPageToken` back for the next. */
export async function listSessions(
  client: Client,
  filter: SessionListFilter,
): Promise<{ sessions: SessionSummary[]; nextPageToken?: Uint8Array }> {
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    pageSize: filter.pageSize ?? DEFAULT_PAGE_SIZE,
    query: sessionListQuery(filter),
    ...(filter.nextPageToken ? { nextPageToken: filter.nextPageToken } : {}),
  });
  const sessions = (response.executions ?? []).map(summaryOf);
  const token = response.nextPageToken;
  return { sessions, ...(token && token.length > 0 ? { nextPageToken: token } : {}) };
}

function summaryOf(info: temporal.api.workflow.v1.IWorkflowExecutionInfo): SessionSummary {
  const attributes = decodeTypedSearchAttributes(info.searchAttributes?.indexedFields);
  const runStatus = runStatusName(info.status);
  const closedAt = timeOf(info.closeTime);
  return {
    sessionId: info.execution?.workflowId ?? '',
    runStatus,
    status: runStatus === 'running' ? (attributes.get(AgentdStatus) ?? 'running') : runStatus,
    step: attributes.get(AgentdStep) ?? 0,
    contextFill: attributes.get(AgentdContextFill) ?? 0,
    costUsd: attributes.get(AgentdCostUsd) ?? 0,
    model: attributes.get(AgentdModel) ?? '',
    startedAt: timeOf(info.startTime) ?? '',
    ...(closedAt ? { closedAt } : {}),
  };
}

function runStatusName(status: temporal.api.enums.v1.WorkflowExecutionStatus | null | undefined): string {
  const name = temporal.api.enums.v1.WorkflowExecutionStatus[status ?? 0] ?? 'UNSPECIFIED';
  return name.replace(/^WORKFLOW_EXECUTION_STATUS_/, '').toLowerCase().replace(/_/g, '-');
}

function timeOf(timestamp: temporal.api.workflow.v1.IWorkflowExecutionInfo['startTime']): string | undefined {
  if (!timestamp?.seconds) return undefined;
  const millis = Number(timestamp.seconds) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6);
  return new Date(millis).toISOString();
}

/** Visibility queries quote strings in single quotes; a quote inside is doubled away by refusing it. */
function quote(value: string): string {
  return `'${value.replace(/['\\]/g, '')}'`;
}
