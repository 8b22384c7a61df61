/** What the `state` query answers and what a session returns; plain JSON, shared by workflow and clients. */

export const SessionStatus = {
  running: 'running',
  waitingForMessage: 'waiting_for_message',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
} as const;
export type SessionStatus = (typeof SessionStatus)[keyof typeof SessionStatus];

/** Why a session ended. */
export const SessionOutcome = {
  /** The agent finished its last turn and no message was waiting. */
  finished: 'finished',
  stepLimit: 'step_limit',
  turnLimit: 'turn_limit',
} as const;
export type SessionOutcome = (typeof SessionOutcome)[keyof typeof SessionOutcome];

export interface UsageTotals {
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
}

export interface ToolCallRecord {
  step: number;
  name: string;
  /** Seq of the stored result. */
  seq: number;
  isError: boolean;
}

export interface SessionState {
  sessionId: string;
  status: SessionStatus;
  model: string;
  turn: number;
  /** Steps (model calls) taken so far in the session. */
  step: number;
  maxSteps: number;
  maxTurns: number;
  context: {
    /** Estimated prompt tokens of the next request. */
    tokens: number;
    window: number;
    messages: number;
  };
  usage: UsageTotals;
  /** The newest tool calls, oldest first. */
  lastToolCalls: ToolCallRecord[];
  pendingMessages: number;
  /** Things the session noticed and went on from (ignored malformed signals…), newest last. */
  warnings: string[];
  outcome?: SessionOutcome;
  /** Final answer (capped; the whole text is in the store at `answerSeq`). */
  answer?: string;
  answerSeq?: number;
}

export interface SessionResult {
  sessionId: string;
  outcome: SessionOutcome;
  answer: string;
  answerSeq?: number;
  turns: number;
  steps: number;
  usage: UsageTotals;
}
