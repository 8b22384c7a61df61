/** One window of a long text with a note on where to continue: shared by read_file and read_output. */
import { z } from 'zod';
import { ToolInputError, type ToolContext } from './tool';

/** Room kept free below the output cap for the paging note, so the note is never cut off. */
const NOTE_RESERVE_CHARS = 100;

/** The `offset` and `limit` fields every paging tool takes. */
export const PagingFields = {
  offset: z.number().int().min(0).optional().describe('Char offset to start reading at. Default 0.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Maximum number of chars to return. Default and maximum: the output limit of one tool call.'),
};

/**
 * The window of `text` from `offset`; when more remains, a note naming `label` and the offset to
 * continue from. `label` names the text in messages (a path, or "seq 12").
 */
export function pageOf(
  text: string,
  label: string,
  page: { offset?: number; limit?: number },
  ctx: Pick<ToolContext, 'outputCapChars'>,
): string {
  const offset = page.offset ?? 0;
  if (offset > text.length) throw new ToolInputError(`offset ${offset} is past the end of ${label} (${text.length} chars)`);
  if (text.length === 0) return `[${label} is empty]`;
  const maxWindow = Math.max(1, ctx.outputCapChars - NOTE_RESERVE_CHARS);
  const end = windowEnd(text, offset, Math.min(page.limit ?? maxWindow, maxWindow));
  const window = text.slice(offset, end);
  if (end >= text.length) return window;
  return `${window}\n[showing chars ${offset}-${end} of ${text.length} of ${label}; call again with offset=${end}]`;
}

/** End of a window of `size` chars; backs off one char rather than split a surrogate pair (an emoji) in two. */
function windowEnd(text: string, offset: number, size: number): number {
  const end = Math.min(text.length, offset + size);
  const code = text.charCodeAt(end - 1);
  const splitsPair = end < text.length && end - 1 > offset && code >= 0xd800 && code <= 0xdbff;
  return splitsPair ? end - 1 : end;
}
