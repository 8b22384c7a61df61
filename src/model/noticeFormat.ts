/**
 * Notices agentd itself puts in a session's transcript (e.g. a workspace failover), as user messages
 * the model reads. Pure constants and string checks, shared by the workflow and the simulator.
 */

/** First characters of a notice, so the simulator and people can tell it from a user's message. */
const NOTICE_PREFIX = '[agentd notice]';

export function isNotice(text: string | null | undefined): boolean {
  return typeof text === 'string' && text.startsWith(NOTICE_PREFIX);
}

/** What the model is told when its workspace moved: the files it made are gone. */
export function workspaceFailoverNotice(from: string, to: string, seconds: number): string {
  return (
    `${NOTICE_PREFIX} The workspace on host ${from} could not be reached for ${seconds} s, so this session ` +
    `now works in a fresh, empty workspace on host ${to}. Every file written before this point is gone: ` +
    'check what exists before relying on it, and recreate what you still need.'
  );
}

/** What the model is told when its reply declared more tool calls than a reply may run. */
export function tooManyToolCallsNotice(declared: number, ran: number): string {
  return (
    `${NOTICE_PREFIX} error: your last reply declared ${declared} tool calls, but at most ${ran} run per reply. ` +
    `The first ${ran} ran and their results are above; the other ${declared - ran} were not run and are not part of ` +
    `this conversation. Make the ones you still need again, at most ${ran} per reply.`
  );
}

/** The result of a tool call the operator cut off: it ran for a while, so what it changed is unknown. */
export function interruptedToolOutput(tool: string, reason: string): string {
  return (
    `error: interrupted: the operator stopped ${tool} before it finished (${reason}); its effect is unknown ` +
    'and it was not run again. Check the workspace before repeating it.'
  );
}

/** What the model is told after an interruption, before it is called again. */
export function interruptNotice(step: number, cut: string, reason: string): string {
  return `${NOTICE_PREFIX} The operator interrupted step ${step} (${cut} cut off): ${reason}`;
}
