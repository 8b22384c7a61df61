/** The tools of one session, for an activity: heartbeating while MCP servers start, which can take a while. */
import type { ToolRegistry } from '../tools/registry';
import { sessionTools } from '../tools/sessionTools';
import type { ActivityDeps } from './deps';
import { withHeartbeat } from './heartbeat';

export function toolsOf(deps: ActivityDeps, sessionId: string): Promise<ToolRegistry> {
  // Without session tools there is nothing to wait for (and no activity context needed).
  if (deps.extraTools === undefined) return Promise.resolve(deps.tools);
  return withHeartbeat(() => sessionTools(deps, sessionId));
}
