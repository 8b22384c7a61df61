/**
 * The session's search attributes (session/searchAttributes.ts), kept in step with its state so
 * the fleet can be listed from Temporal's index. Each publish compares with the values the
 * workflow already carries and upserts only those that changed, in one command: the session calls
 * it on each change of status and once at the end of each step, so a step adds at most one upsert
 * event (a status change adds another). Fill and cost are rounded first (2 decimals, cents) so a
 * step that moves them by a hair writes only its step number. `AgentdModel` is never written here:
 * search attributes pass no payload codec, so only a client that knows its payloads are not
 * encrypted may index the model name (SessionClient.start).
 */
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { AgentdContextFill, AgentdCostUsd, AgentdStatus, AgentdStep } from '../session/searchAttributes';
import type { SessionStatus } from '../session/state';

/** Marks histories whose session keeps its search attributes; older ones never upserted. */
const FLEET_SEARCH_ATTRIBUTES_PATCH = 'fleet-search-attributes';

export interface FleetValues {
  status: SessionStatus;
  step: number;
  /** Context tokens over the window, unrounded. */
  contextFill: number;
  costUsd: number;
}

export class FleetAttributes {
  private readonly enabled = patched(FLEET_SEARCH_ATTRIBUTES_PATCH);

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
    if (changes.length > 0) upsertSearchAttributes(changes);
  }
}

/** Fill as the index keeps it: 0..1 in hundredths (an estimate past the window reads 1). */
export function roundedFill(fill: number): number {
  return Number.isFinite(fill) ? Math.min(1, Math.max(0, Math.round(fill * 100) / 100)) : 0;
}

export function roundedCost(costUsd: number): number {
  return Number.isFinite(costUsd) ? Math.max(0, Math.round(costUsd * 100) / 100) : 0;
}
