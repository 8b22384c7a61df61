/**
 * The search_transcript tool (DESIGN §5 "Nothing lost for good"): full-text search over the current
 * session's original messages in the transcript store, also those compaction summarized or dropped.
 */
import { z } from 'zod';
import { MAX_SEARCH_HITS } from '../../store/searchText';
import { type Tool, ToolInputError } from '../tool';

const SearchTranscriptInput = z.object({
  query: z.string().min(1).describe('Words to find; every word must occur in a message (no stemming: use the exact word).'),
  limit: z.number().int().min(1).max(MAX_SEARCH_HITS).optional().describe('Most results to return. Default 10.'),
});

export const searchTranscriptTool: Tool<typeof SearchTranscriptInput> = {
  name: 'search_transcript',
  description:
    'Search every original message of this session, including those compaction summarized or dropped from the ' +
    'conversation: user messages, your replies and tool-call arguments, tool outputs. Returns the seqs of the best ' +
    'matches with a snippet each (matched words in [brackets]); read_output with a seq shows that original whole.',
  input: SearchTranscriptInput,
  effect: 'read',
  quick: true,
  async run(args, ctx) {
    if (ctx.transcript === undefined) throw new ToolInputError('this session has no transcript to search');
    const hits = await ctx.transcript.search(args.query, args.limit ?? 10);
    if (hits.length === 0) return { output: `no message of this session contains every word of ${JSON.stringify(args.query)}` };
    const lines = hits.map((hit) => `seq ${hit.seq} (${hit.role}): ${hit.snippet.replace(/\s*\n\s*/g, ' ')}`);
    return { output: `${lines.join('\n')}\n[${hits.length} match(es); read_output with seq=N shows one whole]` };
  },
};
