/**
 * The search attributes a session starts with, whether `start` begins it, a schedule's tick does or
 * a parent's `delegate` call: set at the start, so the session is listable before a worker has
 * taken its first task. Pure, so the workflow can start its children with them.
 */
import type { SearchAttributePair } from '@temporalio/common';
import { AgentdContextFill, AgentdCostUsd, AgentdModel, AgentdStatus, AgentdStep } from './searchAttributes';
import { SessionStatus } from './state';

/** `model` is left out with encryption on: search attributes pass no payload codec, so the name would stay readable in the index. */
export function startSearchAttributes(model: string | undefined): SearchAttributePair[] {
  return [
    { key: AgentdStatus, value: SessionStatus.running },
    { key: AgentdStep, value: 0 },
    { key: AgentdContextFill, value: 0 },
    { key: AgentdCostUsd, value: 0 },
    ...(model === undefined ? [] : [{ key: AgentdModel, value: model }]),
  ];
}
