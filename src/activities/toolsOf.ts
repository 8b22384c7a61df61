/** The tools of one session, for an activity: heartbeating while MCP servers start, which can take a while. */
import type { ToolFilter } from '../session/toolFilter';
import type { ToolRegistry } from '../tools/registry';
import { sessionTools } from '../tools/sessionTools';
import type { ActivityDeps } from './deps';
import { withHeartbeat } from './heartbeat';

export async function toolsOf(deps: ActivityDeps, sessionId: string, filter?: ToolFilter): Promise<ToolRegistry> {
  // Without session tools there is nothing to wait for (and no activity context needed).
  const all = deps.extraTools === undefined ? deps.tools : await withHeartbeat(() => sessionTools(deps, sessionId));
  return all.filtered(filter);
}
