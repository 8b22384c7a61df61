/** The name the model sees for an MCP tool: `<server>__<tool>`, in the charset and length OpenAI accepts. */

const MAX_NAME_CHARS = 64;

export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_NAME_CHARS);
}
