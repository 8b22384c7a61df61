/**
 * The MCP servers a worker connects to, from env AGENTD_MCP_SERVERS (JSON) or the file named by
 * AGENTD_MCP_CONFIG; the file read is the only I/O here.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Replaced in a stdio server's args and env values by the session's workspace folder. */
export const WORKSPACE_PLACEHOLDER = '{workspace}';

const ServerName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,32}$/, 'expected 1-32 characters of a-z, A-Z, 0-9, _ or - (it prefixes tool names)');

const StdioServerSchema = z
  .object({
    name: ServerName,
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Added to the few variables (PATH, HOME…) a server inherits; the worker's secrets are not passed on. */
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    /**
     * With `{workspace}`: how many instances (one per session workspace) may run at once; past it, the
     * least recently used idle one is stopped. A worker hosting hundreds of sessions would otherwise
     * hold hundreds of server processes until the idle timeout.
     */
    maxInstances: z.number().int().min(1).default(32),
  })
  .strict();

const HttpServerSchema = z
  .object({
    name: ServerName,
    transport: z.literal('http'),
    url: z.url(),
  })
  .strict();

export const McpServerSchema = z.discriminatedUnion('transport', [StdioServerSchema, HttpServerSchema]);
export type McpServerConfig = z.infer<typeof McpServerSchema>;

export const McpServersSchema = z.array(McpServerSchema).superRefine((servers, ctx) => {
  const seen = new Set<string>();
  servers.forEach((server, index) => {
    if (seen.has(server.name)) {
      ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `server name ${JSON.stringify(server.name)} is used twice` });
    }
    seen.add(server.name);
  });
});

export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** True when each session needs an instance of its own, because the server is told the session's folder. */
export function isPerWorkspace(server: McpServerConfig): boolean {
  if (server.transport !== 'stdio') return false;
  const values = [...server.args, ...Object.values(server.env ?? {}), server.cwd ?? ''];
  return values.some((value) => value.includes(WORKSPACE_PLACEHOLDER));
}

/** Parses a server list given as JSON (an array, or `{ "servers": [...] }`); `source` names it in errors. */
export function parseMcpServers(json: string, source: string): McpServerConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new McpConfigError(`${source}: not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const list = typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'servers' in raw ? raw.servers : raw;
  const parsed = McpServersSchema.safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = (issue?.path ?? []).map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
    throw new McpConfigError(`${source}: servers${where}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The configured servers; none when neither variable is set. Both set is a mistake, not a merge. */
export function readMcpServers(env: NodeJS.ProcessEnv = process.env): McpServerConfig[] {
  const inline = env.AGENTD_MCP_SERVERS;
  const file = env.AGENTD_MCP_CONFIG;
  if (inline && file) throw new McpConfigError('set AGENTD_MCP_SERVERS or AGENTD_MCP_CONFIG, not both');
  if (inline) return parseMcpServers(inline, 'AGENTD_MCP_SERVERS');
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new McpConfigError(`AGENTD_MCP_CONFIG: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    return parseMcpServers(text, `AGENTD_MCP_CONFIG (${file})`);
  }
  return [];
}
