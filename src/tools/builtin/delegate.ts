/**
 * The delegate tool: the model hands a sub-task to a child session with its own context window and a
 * share of the budget, and reads back only the child's answer and the files it made. The workflow
 * runs it (a child workflow); the activity only ever reads its arguments (DESIGN §3 "Delegation").
 */
import { z } from 'zod';
import { DELEGATE_TOOL } from '../../policy/delegation';
import type { Tool } from '../tool';

const ToolNames = z.array(z.string().min(1)).min(1);

/**
 * Like every tool's, fields the schema does not name are ignored rather than refused; and the tool
 * names may come as one comma-separated string, as models often write a list.
 */
export const DelegateInput = z.object({
  task: z.string().trim().min(1).describe('The sub-task, complete in itself: the child sees nothing of this conversation, only this text.'),
  tools: z
    .union([ToolNames, z.string().transform((names) => names.split(',').map((name) => name.trim()).filter((name) => name !== '')).pipe(ToolNames)])
    .optional()
    .describe('Names of the tools the child may use; all of yours when left out.'),
  maxSteps: z.number().int().positive().optional().describe('Most model calls the child may make.'),
  maxTotalTokens: z.number().int().positive().optional().describe('Most tokens the child may spend; taken from your own budget.'),
  maxCostUsd: z.number().positive().optional().describe('Most USD the child may spend; taken from your own budget.'),
});

export const delegateTool: Tool<typeof DelegateInput> = {
  name: DELEGATE_TOOL,
  description:
    'Hand a self-contained sub-task to a helper agent that works in its own workspace with its own context, ' +
    'and get back only its final answer and the list of files it made (copied under delegates/<id>/). ' +
    'Several delegate calls in one reply run at the same time. Use it for research or work whose details you do not need to keep.',
  input: DelegateInput,
  effect: 'delegate',
  // The workflow starts the child; reaching this means the session's workflow predates delegation.
  async run() {
    return { output: 'error: delegate is not available in this session' };
  },
};
