/** The finish tool: the agent's way to declare the task done and hand back its answer. */
import { z } from 'zod';
import type { Tool } from '../tool';

const FinishInput = z.object({
  answer: z.string().describe('The final answer or summary of the work, for the person who started the session.'),
});

export const finishTool: Tool<typeof FinishInput> = {
  name: 'finish',
  description: 'Call this once the task is complete (or cannot be completed) to end the session with your answer.',
  input: FinishInput,
  // Only ends the session; running it twice changes nothing.
  effect: 'read',
  quick: true,
  async run(args) {
    return { output: 'session finished', finished: { answer: args.answer } };
  },
};
