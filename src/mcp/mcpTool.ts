/** An MCP server's tool in agentd's tool shape: the server's schema goes to the model, the call to the server. */
import { z } from 'zod';
import { ToolEffect, type Tool } from '../tools/tool';
import { McpCallError, type McpConnection, type McpToolInfo } from './connection';
import { resultText } from './resultText';
import { mcpToolName } from './toolName';

// The server validates its own arguments; agentd only checks they form an object.
const AnyObject = z.record(z.string(), z.unknown());

export function mcpTool(connection: McpConnection, info: McpToolInfo): Tool<typeof AnyObject> {
  const { $schema: _ignored, ...parameters } = info.inputSchema as Record<string, unknown>;
  return {
    name: mcpToolName(connection.server.name, info.name),
    description: info.description ?? info.title ?? `${info.name} (MCP server ${connection.server.name})`,
    input: AnyObject,
    parameters,
    // Only a server's own promise that a tool changes nothing makes it safe to run twice.
    effect: info.annotations?.readOnlyHint === true ? ToolEffect.read : ToolEffect.write,
    async run(args, ctx) {
      try {
        return { output: resultText(await connection.call(info.name, args, { signal: ctx.signal, timeoutMs: ctx.timeoutMs })) };
      } catch (error) {
        if (error instanceof McpCallError) return { output: `error: ${error.message}` };
        throw error;
      }
    },
  };
}
