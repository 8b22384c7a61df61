/** Which of the worker's tools a session sees: its `tools` list, less `delegate` where it may not delegate. Pure. */
import { DELEGATE_TOOL, delegationOffered } from '../policy/delegation';
import type { SessionInput } from './input';

/**
 * `only` those named (and always `finish`, so the session can end), `without` those named. Plain
 * data: the workflow hands it to every activity that lists the tools.
 */
export interface ToolFilter {
  only?: readonly string[];
  without?: readonly string[];
}

/** The session's filter; undefined when it sees every tool, as sessions from before filters did. */
export function sessionToolFilter(input: Pick<SessionInput, 'tools' | 'delegation' | 'delegatedBy'>): ToolFilter | undefined {
  const delegates = delegationOffered(input.delegation, input.delegatedBy?.depth ?? 0);
  if (input.tools === undefined && delegates) return undefined;
  return { ...(input.tools ? { only: input.tools } : {}), ...(delegates ? {} : { without: [DELEGATE_TOOL] }) };
}
