/** The chat completion body the simulator accepts: agentd's message schema plus OpenAI's other knobs. */
import { z } from 'zod';
import { ChatMessageSchema } from '../model/messages';

/** Loose, so keys like `strict` survive and the tools are counted exactly as they were sent. */
const ToolSpecSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, _ or -'),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
  }),
});

/** Real parameters the script ignores; anything not listed is rejected as OpenAI rejects it. */
const ignored = z.unknown().optional();

export const ChatRequestSchema = z.strictObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
  tools: z.array(ToolSpecSchema).optional(),
  // Fail loudly instead of answering a streaming client with a body it cannot read.
  stream: z.literal(false, { error: 'the simulator does not stream; leave stream unset or false' }).optional(),
  n: z.literal(1, { error: 'the simulator answers with one choice; leave n unset or 1' }).optional(),
  tool_choice: ignored,
  parallel_tool_calls: ignored,
  temperature: ignored,
  top_p: ignored,
  // Read by the summarizer, which stops there (unless its behaviour ignores it); the script's steps are short.
  max_tokens: z.number().int().min(1).optional(),
  max_completion_tokens: z.number().int().min(1).optional(),
  stop: ignored,
  seed: ignored,
  user: ignored,
  presence_penalty: ignored,
  frequency_penalty: ignored,
  logit_bias: ignored,
  logprobs: ignored,
  top_logprobs: ignored,
  response_format: ignored,
  stream_options: ignored,
  metadata: ignored,
  store: ignored,
  reasoning_effort: ignored,
  service_tier: ignored,
  prompt_cache_key: ignored,
  safety_identifier: ignored,
  verbosity: ignored,
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;
