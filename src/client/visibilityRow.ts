/**
 * One row of `listWorkflowExecutions`, decoded with the SDK's public parts only: the protobuf
 * enums and the default payload converter. The client's own decoder (`client.workflow.list`) hides
 * the page token a paged list needs, and the one behind it is not part of the package's API.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

type RawExecution = temporal.api.workflow.v1.IWorkflowExecutionInfo;
type RawTimestamp = temporal.api.workflow.v1.IWorkflowExecutionInfo['startTime'];

export interface VisibilityRow {
  readonly workflowId: string;
  readonly runId: string;
  /** As the SDK names it: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, CONTINUED_AS_NEW, TIMED_OUT… */
  readonly status: string;
  readonly startTime: Date;
  readonly closeTime?: Date;
  /** The workflow that started this one as a child, if one did. */
  readonly parentWorkflowId?: string;
  /** Search attribute values by name, as the payload converter reads them. */
  readonly attributes: ReadonlyMap<string, unknown>;
}

const STATUS_PREFIX = 'WORKFLOW_EXECUTION_STATUS_';

export function visibilityRowOf(raw: RawExecution): VisibilityRow {
  const closeTime = dateOf(raw.closeTime);
  return {
    workflowId: raw.execution?.workflowId ?? '',
    runId: raw.execution?.runId ?? '',
    status: statusName(raw.status),
    startTime: dateOf(raw.startTime) ?? new Date(0),
    ...(closeTime !== undefined ? { closeTime } : {}),
    ...(raw.parentExecution?.workflowId ? { parentWorkflowId: raw.parentExecution.workflowId } : {}),
    attributes: attributesOf(raw.searchAttributes?.indexedFields),
  };
}

function statusName(status: temporal.api.enums.v1.WorkflowExecutionStatus | null | undefined): string {
  const name = temporal.api.enums.v1.WorkflowExecutionStatus[status ?? 0] ?? `${STATUS_PREFIX}UNKNOWN`;
  const short = name.startsWith(STATUS_PREFIX) ? name.slice(STATUS_PREFIX.length) : name;
  // The API spells it CANCELED; the SDK, and agentd after it, CANCELLED.
  return short === 'CANCELED' ? 'CANCELLED' : short;
}

function dateOf(timestamp: RawTimestamp): Date | undefined {
  if (!timestamp || timestamp.seconds === null || timestamp.seconds === undefined) return undefined;
  return new Date(Number(timestamp.seconds.toString()) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6));
}

function attributesOf(fields: Record<string, temporal.api.common.v1.IPayload> | null | undefined): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const [name, payload] of Object.entries(fields ?? {})) {
    try {
      values.set(name, defaultPayloadConverter.fromPayload(payload));
    } catch {
      // An attribute agentd does not read may hold any encoding; it is left out rather than failing the list.
    }
  }
  return values;
}
