/** Turns an MCP tool result (content blocks, structured content, isError) into the text the model reads. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Block = CallToolResult['content'][number];

export function resultText(result: CallToolResult): string {
  const parts = result.content.map(blockText);
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  // A tool error is news for the model, marked the way agentd's own tool errors are.
  return result.isError === true ? `error: ${text}` : text;
}

function blockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      // Binary content does not fit a chat tool message; say what was there.
      return `[${block.type} ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes, not shown]`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}, binary, not shown]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.description ? `: ${block.description}` : ''}]`;
    default:
      return JSON.stringify(block);
  }
}
