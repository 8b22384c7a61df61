/**
 * The read_output tool: pages through any original of the session by seq — a tool output the context
 * shows cut, tool-call arguments shown cut, or a message compaction summarized away.
 */
import { z } from 'zod';
import { PagingFields, pageOf } from '../paging';
import { type Tool, ToolInputError } from '../tool';

const ReadOutputInput = z.object({
  seq: z.number().int().min(0).describe('The seq to read, as a cut view, the session memory or search_transcript names it.'),
  ...PagingFields,
});

export const readOutputTool: Tool<typeof ReadOutputInput> = {
  name: 'read_output',
  description:
    'Read the full original of an earlier message by its seq: a tool output, a tool call\'s arguments, a long user message, or a ' +
    'message compaction took out of the conversation. Long tool outputs and arguments are shown cut to their head ' +
    'and tail; this returns the original in windows, ending with a note giving the offset to continue from when ' +
    'more remains.',
  input: ReadOutputInput,
  effect: 'read',
  quick: true,
  async run(args, ctx) {
    if (ctx.transcript === undefined) {
      throw new ToolInputError(`cannot read the output of seq ${args.seq}: this session has no transcript to read from`);
    }
    const text = await ctx.transcript.readOutput(args.seq);
    if (text === undefined) throw new ToolInputError(`seq ${args.seq} is not stored for this session`);
    return { output: pageOf(text, `seq ${args.seq}`, args, ctx) };
  },
};
