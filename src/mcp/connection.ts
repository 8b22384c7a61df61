/**
 * One running instance of an MCP server (a child process over stdio, or an HTTP endpoint): connects
 * on first use, lists its tools, calls them, and reconnects on the next use after the server died.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { OutputTail } from '../devServer/outputTail';
import { WORKSPACE_PLACEHOLDER, type McpServerConfig } from './config';

export type { McpToolInfo };

const CLIENT_INFO = { name: 'agentd', version: '0.1.0' };

export type McpCallErrorCode = 'server_died' | 'timeout' | 'unreachable';

/** A call that did not get an answer from the server; the message says which server and why. */
export class McpCallError extends Error {
  override readonly name = 'McpCallError';
  constructor(
    readonly code: McpCallErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface Live {
  client: Client;
  transport: Transport;
  tools?: McpToolInfo[];
}

export class McpConnection {
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private readonly stderr = new OutputTail(4000);
  /** How many times a server process was started (or an HTTP session opened); restarts are this minus one. */
  starts = 0;
  /** When the hub last handed this instance out or a call on it ended: the idle sweep counts from here. */
  lastUsed = Date.now();
  private callsInFlight = 0;

  constructor(
    readonly server: McpServerConfig,
    /** The session folder this instance was started for; undefined for an instance all sessions share. */
    readonly workspace?: string,
  ) {}

  /** The server's process id while one runs (stdio only). */
  get pid(): number | undefined {
    const transport = this.live?.transport;
    return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
  }

  /** True while a call runs or the server is starting: stopping the instance now would break that call. */
  get busy(): boolean {
    return this.callsInFlight > 0 || this.connecting !== undefined;
  }

  /** The server's tools, listed once per connection and again after it announces a change. */
  async tools(): Promise<McpToolInfo[]> {
    const live = await this.connect();
    if (live.tools) return live.tools;
    // A server offering only prompts or resources has no tools to list (and may answer the request with an error).
    if (live.client.getServerCapabilities()?.tools === undefined) {
      live.tools = [];
      return live.tools;
    }
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.guard(live, 'tools/list', 30_000, undefined, () =>
        live.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: 30_000 }),
      );
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    live.tools = tools;
    return tools;
  }

  async call(name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<CallToolResult> {
    this.callsInFlight += 1;
    try {
      const live = await this.connect();
      return await this.guard(live, `tool ${name}`, options.timeoutMs, options.signal, async () => {
        const result = await live.client.callTool({ name, arguments: args }, undefined, {
          signal: options.signal,
          timeout: options.timeoutMs,
        });
        // Servers on the old protocol answer `{ toolResult }`; agentd needs content blocks.
        if (!('content' in result)) {
          return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] } as CallToolResult;
        }
        return result as CallToolResult;
      });
    } finally {
      this.callsInFlight -= 1;
      this.lastUsed = Date.now();
    }
  }

  async close(): Promise<void> {
    const live = this.live;
    this.live = undefined;
    await live?.client.close().catch(() => undefined);
  }

  private connect(): Promise<Live> {
    if (this.live) return Promise.resolve(this.live);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Live> {
    const transport = this.transport();
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      listChanged: {
        tools: {
          autoRefresh: false,
          onChanged: () => {
            if (this.live?.client === client) this.live.tools = undefined;
          },
        },
      },
    });
    const live: Live = { client, transport };
    client.onclose = () => {
      // The process exited or the stream ended: the next use starts a fresh instance.
      if (this.live === live) this.live = undefined;
    };
    this.starts += 1;
    try {
      await client.connect(transport, { timeout: 30_000 });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new McpCallError('unreachable', `MCP server ${this.label()} could not be started: ${describe(error)}${this.stderrNote()}`, {
        cause: error,
      });
    }
    this.live = live;
    return live;
  }

  private transport(): Transport {
    const server = this.server;
    if (server.transport === 'http') return new StreamableHTTPClientTransport(new URL(server.url));
    const fill = (value: string) => (this.workspace === undefined ? value : value.split(WORKSPACE_PLACEHOLDER).join(this.workspace));
    const env = Object.fromEntries(Object.entries(server.env ?? {}).map(([key, value]) => [key, fill(value)]));
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args.map(fill),
      // Only the SDK's short list of harmless variables (PATH, HOME…): the worker's API keys stay with the worker.
      env: { ...getDefaultEnvironment(), ...env },
      ...(server.cwd === undefined ? {} : { cwd: fill(server.cwd) }),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    return transport;
  }

  /**
   * Runs one request; when it fails for want of a server (closed, unreachable, silent), drops the
   * connection so the next use starts afresh, and says so in an McpCallError.
   */
  private async guard<T>(
    live: Live,
    what: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    request: () => Promise<T>,
  ): Promise<T> {
    try {
      return await request();
    } catch (error) {
      // Cancelled by the activity: the server is fine, the workflow decides what happens next.
      if (signal?.aborted) throw error;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new McpCallError('timeout', `MCP server ${this.label()} did not answer ${what} within ${Math.round(timeoutMs / 1000)} s`, {
          cause: error,
        });
      }
      // An error the server sent back (bad arguments, unknown tool) leaves the connection usable.
      if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) throw error;
      if (this.live === live) this.live = undefined;
      await live.client.close().catch(() => undefined);
      throw new McpCallError(
        'server_died',
        `MCP server ${this.label()} stopped answering during ${what} (${describe(error)}); ` +
          `its effect is unknown, and the server is started again on the next call${this.stderrNote()}`,
        { cause: error },
      );
    }
  }

  private label(): string {
    return JSON.stringify(this.server.name);
  }

  private stderrNote(): string {
    const tail = this.stderr.lines(5);
    return tail === '' ? '' : `; its last stderr lines: ${tail}`;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
