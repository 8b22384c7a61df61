/** The read_output tool: pages through the original of an earlier tool output that the context shows cut. */
import { z } from 'zod';
import { type Tool, ToolInputError } from '../tool';

/** Room kept free below the output cap for the paging note, so the note is never cut off. */
const NOTE_RESERVE_CHARS = 100;

const ReadOutputInput = z.object({
  seq: z.number().int().min(0).describe('The seq of the tool output to read, as the cut view of it names it.'),
  offset: z.number().int().min(0).optional().describe('Char offset to start reading at. Default 0.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Maximum number of chars to return. Default and maximum: the output limit of one tool call.'),
});

export const readOutputTool: Tool<typeof ReadOutputInput> = {
  name: 'read_output',
  description:
    'Read the full original of an earlier tool output by its seq. Long tool outputs are shown in the conversation ' +
    'cut to their head and tail; this returns the original in windows, ending with a note giving the offset to ' +
    'continue from when more remains.',
  input: ReadOutputInput,
  effect: 'read',
  async run(args, ctx) {
    if (ctx.transcript === undefined) {
      throw new ToolInputError(`cannot read the output of seq ${args.seq}: this session has no transcript to read from`);
    }
    const text = await ctx.transcript.readOutput(args.seq);
    if (text === undefined) throw new ToolInputError(`seq ${args.seq} is not a tool output of this session`);
    const offset = args.offset ?? 0;
    if (offset > text.length) {
      throw new ToolInputError(`offset ${offset} is past the end of the output of seq ${args.seq} (${text.length} chars)`);
    }
    if (text.length === 0) return { output: `[the output of seq ${args.seq} is empty]` };
    const maxWindow = Math.max(1, ctx.outputCapChars - NOTE_RESERVE_CHARS);
    const end = windowEnd(text, offset, Math.min(args.limit ?? maxWindow, maxWindow));
    const window = text.slice(offset, end);
    if (end >= text.length) return { output: window };
    return {
      output: `${window}\n[showing chars ${offset}-${end} of ${text.length} of seq ${args.seq}; call again with offset=${end}]`,
    };
  },
};

/** End of a window of `size` chars; backs off one char rather than split a surrogate pair (an emoji) in two. */
function windowEnd(text: string, offset: number, size: number): number {
  const end = Math.min(text.length, offset + size);
  const code = text.charCodeAt(end - 1);
  const splitsPair = end < text.length && end - 1 > offset && code >= 0xd800 && code <= 0xdbff;
  return splitsPair ? end - 1 : end;
}
