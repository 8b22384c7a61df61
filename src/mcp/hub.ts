/**
 * A worker's MCP servers: one shared instance per server, except servers told the session's folder
 * (`{workspace}` in args, env or cwd), which get an instance per session workspace, started on first
 * use and stopped after sitting idle or to stay within the server's `maxInstances`. Processes and
 * sockets live here.
 */
import type { Tool } from '../tools/tool';
import { isPerWorkspace, type McpServerConfig } from './config';
import { McpConnection } from './connection';
import { mcpTool } from './mcpTool';

export interface McpHubOptions {
  /** A per-workspace instance unused this long is stopped (started again on next use). @default 600000 */
  idleMs?: number;
}

export class McpHub {
  private readonly instances = new Map<string, McpConnection>();
  private readonly idleMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    readonly servers: readonly McpServerConfig[],
    options: McpHubOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 600_000;
    this.sweeper = setInterval(() => void this.stopIdle(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  /**
   * The MCP tools a session in `workspace` may call, named `<server>__<tool>`, in configuration order.
   * A server that cannot be reached fails the listing, naming the server: hiding its tools would
   * leave the model guessing.
   */
  async toolsFor(workspace: string): Promise<Tool[]> {
    const perServer = await Promise.all(
      this.servers.map(async (server) => {
        const infos = await this.instanceFor(server, workspace).tools();
        return infos.map((info) => mcpTool(server, info, () => this.instanceFor(server, workspace)));
      }),
    );
    const tools = perServer.flat();
    const seen = new Set<string>();
    for (const { name } of tools) {
      // Sanitizing and the 64-character cut can make two names one; the model could not tell them apart.
      if (seen.has(name)) throw new Error(`two MCP tools are both named ${JSON.stringify(name)} after prefixing and sanitizing`);
      seen.add(name);
    }
    return tools;
  }

  /** Running server processes, for operators and tests (a test kills one to see it restarted). */
  processes(): { server: string; workspace?: string; pid: number; starts: number }[] {
    return [...this.instances.values()].flatMap(({ server, workspace, pid, starts }) =>
      pid === undefined ? [] : [{ server: server.name, ...(workspace === undefined ? {} : { workspace }), pid, starts }],
    );
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.instances.values()];
    this.instances.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }

  private instanceFor(server: McpServerConfig, workspace: string): McpConnection {
    const own = isPerWorkspace(server);
    const key = own ? `${server.name}\0${workspace}` : server.name;
    let connection = this.instances.get(key);
    if (connection === undefined) {
      if (own) this.makeRoomFor(server);
      connection = new McpConnection(server, own ? workspace : undefined);
      this.instances.set(key, connection);
    }
    connection.lastUsed = Date.now();
    return connection;
  }

  /**
   * Stops the least recently used idle instance of a per-workspace server that has `maxInstances`
   * running. When every one of them is busy the new instance starts anyway: refusing would fail a
   * session's call, and the count comes back down at the next start or sweep.
   */
  private makeRoomFor(server: McpServerConfig): void {
    if (server.transport !== 'stdio') return;
    const running = [...this.instances.entries()].filter(([, connection]) => connection.server === server);
    if (running.length < server.maxInstances) return;
    const [oldest] = running.filter(([, connection]) => !connection.busy).sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    if (oldest === undefined) return;
    const [key, connection] = oldest;
    this.instances.delete(key);
    void connection.close();
  }

  private async stopIdle(): Promise<void> {
    const cutoff = Date.now() - this.idleMs;
    const idle = [...this.instances.entries()].filter(
      ([, connection]) => connection.workspace !== undefined && connection.lastUsed < cutoff && !connection.busy,
    );
    for (const [key] of idle) this.instances.delete(key);
    await Promise.all(idle.map(([, connection]) => connection.close()));
  }
}
