/**
 * The search attributes a session starts with, whether `start` begins it or a schedule's tick does:
 * set at the start, so the session is listable before a worker has taken its first task.
 */
import type { SearchAttributePair } from '@temporalio/common';
import type { SessionInput } from '../session/input';
import { AgentdContextFill, AgentdCostUsd, AgentdModel, AgentdStatus, AgentdStep } from '../session/searchAttributes';
import { SessionStatus } from '../session/state';

/** `encrypted`: search attributes pass no payload codec, so with encryption on the model name stays out of the index. */
export function startSearchAttributes(input: SessionInput, encrypted: boolean): SearchAttributePair[] {
  return [
    { key: AgentdStatus, value: SessionStatus.running },
    { key: AgentdStep, value: 0 },
    { key: AgentdContextFill, value: 0 },
    { key: AgentdCostUsd, value: 0 },
    ...(encrypted ? [] : [{ key: AgentdModel, value: input.model }]),
  ];
}
