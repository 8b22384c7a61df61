/**
 * The naive foil's contract: what public Temporal integrations for agents do, and agentd does not —
 * the whole message list lives in workflow state and travels as activity input and output.
 */
import type { ChatMessage } from '../../src/model/messages';

export const FOIL_TASK_QUEUE = 'agentd-foil';
export const FOIL_WORKFLOW_TYPE = 'naiveAgent';

export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
export type ToolCall = NonNullable<AssistantMessage['tool_calls']>[number];

export interface NaiveAgentInput {
  readonly task: string;
  readonly model: string;
  readonly systemPrompt: string;
  readonly maxSteps: number;
  readonly toolTimeoutSeconds: number;
  readonly toolOutputCapChars: number;
}

export interface NaiveAgentResult {
  readonly steps: number;
  readonly answer: string;
}

export interface FoilCallModelInput {
  readonly model: string;
  /** Every message of the session, bodies and all: this is what makes history grow. */
  readonly messages: readonly ChatMessage[];
}

export interface FoilRunToolInput {
  readonly sessionId: string;
  readonly call: ToolCall;
  readonly timeoutSeconds: number;
  readonly outputCapChars: number;
}

export interface FoilToolResult {
  /** The whole output, returned to the workflow (and so written into its history). */
  readonly output: string;
  readonly finished?: { readonly answer: string };
}
