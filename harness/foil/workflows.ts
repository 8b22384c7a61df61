/**
 * The foil's workflow bundle: only `naiveAgent`, a loop that keeps every message in workflow state
 * and hands the whole list to the model activity on each step. Test-only, for comparison.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ChatMessage } from '../../src/model/messages';
import type { FoilActivities } from './activities';
import type { NaiveAgentInput, NaiveAgentResult } from './types';

const { foilCallModel, foilRunTool } = proxyActivities<FoilActivities>({
  // Short and bounded: a result too big for gRPC never reaches the server, so the attempt can only
  // end by this timeout; each step here takes well under a second.
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
});

export async function naiveAgent(input: NaiveAgentInput): Promise<NaiveAgentResult> {
  const messages: ChatMessage[] = [
    { role: 'system', content: input.systemPrompt },
    { role: 'user', content: input.task },
  ];
  for (let step = 1; step <= input.maxSteps; step += 1) {
    const reply = await foilCallModel({ model: input.model, messages });
    messages.push(reply);
    if (!reply.tool_calls?.length) return { steps: step, answer: reply.content ?? '' };
    let answer: string | undefined;
    for (const call of reply.tool_calls) {
      const result = await foilRunTool({
        sessionId: workflowInfo().workflowId,
        call,
        timeoutSeconds: input.toolTimeoutSeconds,
        outputCapChars: input.toolOutputCapChars,
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.output });
      answer ??= result.finished?.answer;
    }
    if (answer !== undefined) return { steps: step, answer };
  }
  return { steps: input.maxSteps, answer: `stopped after ${input.maxSteps} steps` };
}
