/** Reads a `delegate` call's arguments from the store, for the workflow that starts the child. */
import { DelegateInput } from '../tools/builtin/delegate';
import { describeZodError } from '../session/validation';
import type { ActivityDeps } from './deps';
import { toolsOf } from './toolsOf';
import type { ReadDelegationInput, ReadDelegationResult } from './delegationTypes';

export function createReadDelegation(deps: ActivityDeps) {
  return async function readDelegation(input: ReadDelegationInput): Promise<ReadDelegationResult> {
    const call = (await deps.store.toolCallsOf(input.sessionId, input.callSeq))?.find((candidate) => candidate.id === input.toolCallId);
    if (!call) throw new Error(`session ${input.sessionId}: seq ${input.callSeq} declares no tool call ${input.toolCallId}`);
    const parsed = DelegateInput.safeParse(parseJson(call.function.arguments));
    if (!parsed.success) return { ok: false, problem: `invalid arguments: ${describeZodError(parsed.error)}` };
    const request = parsed.data;
    if (request.tools) {
      const own = await toolsOf(deps, input.sessionId, input.tools);
      const unknown = request.tools.filter((name) => own.get(name) === undefined);
      if (unknown.length > 0) return { ok: false, problem: `tools: ${unknown.join(', ')} not among yours (${own.names().join(', ')})` };
    }
    return { ok: true, request };
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
