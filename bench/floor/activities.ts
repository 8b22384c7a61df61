import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { TranscriptStore } from '../../src/store/transcriptStore';

/** The floor's activities: no I/O, no work, so their time is Temporal's and the worker's alone. */
export const floorActivities = {
  async floorModel(step: number): Promise<number> {
    return step;
  },
  async floorTool(reply: number): Promise<number> {
    return reply;
  },
};

export type FloorActivities = typeof floorActivities;

/**
 * The same two activities doing the least I/O any agent step needs, and nothing else: the model
 * activity makes one chat completion through the real openai client (to a fixed-reply endpoint)
 * and stores the reply; the tool activity stores a result. No context is read, no tool runs, no
 * compaction decision is made. agentd cannot be faster than this, whatever its workflow does.
 */
export function ioFloorActivities(store: TranscriptStore, model: OpenAI): FloorActivities {
  const sessionId = () => `io-floor-${Context.current().info.workflowExecution?.workflowId ?? 'standalone'}`;
  return {
    async floorModel(step) {
      // The workflow id in the prompt lets the scale benchmark tell one floor session's steps from another's.
      const completion = await model.chat.completions.create({ model: 'fixed-reply', messages: [{ role: 'user', content: `${sessionId()} step ${step}` }] });
      await store.put(sessionId(), 2 * step, { role: 'assistant', content: completion.choices[0]?.message.content ?? '' });
      return step;
    },
    async floorTool(reply) {
      await store.put(sessionId(), 2 * reply + 1, { role: 'tool', tool_call_id: `call-${reply}`, content: 'done' });
      return reply;
    },
  };
}
