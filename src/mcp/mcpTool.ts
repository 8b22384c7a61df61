/** An MCP server's tool in agentd's tool shape: the server's schema goes to the model, the call to the server. */
import { z } from 'zod';
import { ToolEffect, type Tool } from '../tools/tool';
import { McpCallError, type McpConnection, type McpToolInfo } from './connection';
import type { McpServerConfig } from './config';
import { resultText } from './resultText';
import { mcpToolName } from './toolName';

// The server validates its own arguments; agentd only checks they form an object.
const AnyObject = z.record(z.string(), z.unknown());

/**
 * `connectionNow` is asked at each call rather than once: the hub may have stopped the instance the
 * tool was listed from (idle, or over its server's `maxInstances`) and started another since.
 */
export function mcpTool(server: McpServerConfig, info: McpToolInfo, connectionNow: () => McpConnection): Tool<typeof AnyObject> {
  const { $schema: _ignored, ...parameters } = info.inputSchema as Record<string, unknown>;
  return {
    name: mcpToolName(server.name, info.name),
    description: info.description ?? info.title ?? `${info.name} (MCP server ${server.name})`,
    input: AnyObject,
    parameters,
    // Only a server's own promise that a tool changes nothing makes it safe to run twice.
    effect: info.annotations?.readOnlyHint === true ? ToolEffect.read : ToolEffect.write,
    async run(args, ctx) {
      try {
        return { output: resultText(await connectionNow().call(info.name, args, { signal: ctx.signal, timeoutMs: ctx.timeoutMs })) };
      } catch (error) {
        if (error instanceof McpCallError) return { output: `error: ${error.message}` };
        throw error;
      }
    },
  };
}
