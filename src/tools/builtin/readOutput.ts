/** The read_output tool: pages through the original of an earlier tool output that the context shows cut. */
import { z } from 'zod';
import { PagingFields, pageOf } from '../paging';
import { type Tool, ToolInputError } from '../tool';

const ReadOutputInput = z.object({
  seq: z.number().int().min(0).describe('The seq of the tool output to read, as the cut view of it names it.'),
  ...PagingFields,
});

export const readOutputTool: Tool<typeof ReadOutputInput> = {
  name: 'read_output',
  description:
    'Read the full original of an earlier tool output (or of a long user message) by its seq. Long ones are shown in the conversation ' +
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
    return { output: pageOf(text, `seq ${args.seq}`, args, ctx) };
  },
};
