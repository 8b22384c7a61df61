/** Reads a `delegate` call's arguments from the store, for the workflow that starts the child. */
import { delegateTool } from '../tools/builtin/delegate';
import { parseToolArguments } from '../tools/runToolCall';
import type { ActivityDeps } from './deps';
import { toolsOf } from './toolsOf';
import type { ReadDelegationInput, ReadDelegationResult } from './delegationTypes';

export function createReadDelegation(deps: ActivityDeps) {
  return async function readDelegation(input: ReadDelegationInput): Promise<ReadDelegationResult> {
    const call = (await deps.store.toolCallsOf(input.sessionId, input.callSeq))?.find((candidate) => candidate.id === input.toolCallId);
    if (!call) throw new Error(`session ${input.sessionId}: seq ${input.callSeq} declares no tool call ${input.toolCallId}`);
    // Parsed as every tool's arguments are, so the model reads the same kind of error for any call.
    const parsed = parseToolArguments(delegateTool, call.function.arguments);
    if (!parsed.ok) return { ok: false, problem: parsed.problem };
    const request = parsed.args;
    if (request.tools) {
      const own = await toolsOf(deps, input.sessionId, input.tools);
      const unknown = request.tools.filter((name) => own.get(name) === undefined);
      if (unknown.length > 0) return { ok: false, problem: `tools: ${unknown.join(', ')} not among yours (${own.names().join(', ')})` };
    }
    return { ok: true, request };
  };
}
