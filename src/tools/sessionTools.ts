/** The tools one session sees: the worker's own (built-in and user) plus its MCP servers' tools for the session's workspace. */
import type { Tool } from './tool';
import { ToolRegistry } from './registry';
import { ensureWorkspace } from './workspace';

/** Tools that depend on the session, such as MCP servers started for its workspace. */
export interface SessionToolSource {
  toolsFor(workspace: string): Promise<Tool[]>;
}

export interface SessionToolDeps {
  tools: ToolRegistry;
  extraTools?: SessionToolSource;
  workspaceRoot: string;
}

/**
 * Built in the activity on each use, so the model's tool list never passes through workflow
 * history (only its token count does), and a server's changed tool list is seen on the next call.
 */
export async function sessionTools(deps: SessionToolDeps, sessionId: string): Promise<ToolRegistry> {
  if (deps.extraTools === undefined) return deps.tools;
  const workspace = await ensureWorkspace(deps.workspaceRoot, sessionId);
  return new ToolRegistry([...deps.tools.all(), ...(await deps.extraTools.toolsFor(workspace))]);
}
