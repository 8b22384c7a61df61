/**
 * The session's search attributes (session/searchAttributes.ts), kept in step with its state so
 * the fleet can be listed from Temporal's index. Each publish compares with the values the
 * workflow already carries and upserts only those that changed, in one command. A change of status
 * is published at once; at a step's end the step, fill and cost are published only when
 * INDEX_REFRESH_MS of workflow time have passed since the last upsert: each upsert is a write to the
 * server's visibility store, the dearest part of a step for the server (the deploy guide's "Sizing
 * a fleet" gives the run that measured it). Fill and cost are rounded first (2 decimals,
 * cents). `AgentdModel` is never written here:
 * search attributes pass no payload codec, so only a client that knows its payloads are not
 * encrypted may index the model name (SessionClient.start).
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { AgentdContextFill, AgentdCostUsd, AgentdStatus, AgentdStep } from '../session/searchAttributes';
import type { SessionStatus } from '../session/state';

/** Marks histories whose session keeps its search attributes; older ones never upserted. */
const FLEET_SEARCH_ATTRIBUTES_PATCH = 'fleet-search-attributes';
/** Marks histories whose steps refresh the index every INDEX_REFRESH_MS; older ones upserted at every step. */
const INDEX_REFRESH_PATCH = 'fleet-index-refresh-30s';

/** How stale a running session's step, fill and cost may be in the index; its status never is. */
const INDEX_REFRESH_MS = 30_000;

export interface FleetValues {
  status: SessionStatus;
  step: number;
  /** Context tokens over the window, unrounded. */
  contextFill: number;
  costUsd: number;
}

export class FleetAttributes {
  private readonly enabled = patched(FLEET_SEARCH_ATTRIBUTES_PATCH);
  private readonly refreshEvery = patched(INDEX_REFRESH_PATCH) ? INDEX_REFRESH_MS : 0;
  /** Workflow time of this run's last upsert. */
  private upsertedAt = Number.NEGATIVE_INFINITY;

  /** At the end of a step: whether to publish, because the status changed or the index is due a refresh. */
  dueAtStepEnd(status: SessionStatus): boolean {
    return workflowInfo().typedSearchAttributes.get(AgentdStatus) !== status || Date.now() - this.upsertedAt >= this.refreshEvery;
  }

  /** What changed, at once. */
  publish(values: FleetValues): void {
    if (!this.enabled) return;
    const current = workflowInfo().typedSearchAttributes;
    const wanted: SearchAttributeUpdatePair[] = [
      { key: AgentdStatus, value: values.status },
      { key: AgentdStep, value: values.step },
      { key: AgentdContextFill, value: roundedFill(values.contextFill) },
      { key: AgentdCostUsd, value: roundedCost(values.costUsd) },
    ];
    const changes = wanted.filter((pair) => current.get(pair.key) !== pair.value);
    if (changes.length === 0) return;
    upsertSearchAttributes(changes);
    this.upsertedAt = Date.now();
  }
}

/** Fill as the index keeps it: 0..1 in hundredths (an estimate past the window reads 1). */
export function roundedFill(fill: number): number {
  return Number.isFinite(fill) ? Math.min(1, Math.max(0, Math.round(fill * 100) / 100)) : 0;
}

export function roundedCost(costUsd: number): number {
  return Number.isFinite(costUsd) ? Math.max(0, Math.round(costUsd * 100) / 100) : 0;
}
