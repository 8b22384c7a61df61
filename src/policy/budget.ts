/**
 * Budget guards: steps, billed tokens, cost and a run of identical tool calls. A tripped guard
 * pauses the session until an operator approves a new budget. Pure: numbers in, a verdict out.
 */
import { z } from 'zod';

export const BudgetGuard = {
  steps: 'max_steps',
  tokens: 'max_total_tokens',
  cost: 'max_cost_usd',
  repeatedToolCall: 'repeated_tool_call',
} as const;
export type BudgetGuard = (typeof BudgetGuard)[keyof typeof BudgetGuard];

/** @default 4: the scripted agent never repeats a call, a stuck real one does it at once. */
export const DEFAULT_MAX_REPEATED_TOOL_CALLS = 4;

export interface BudgetLimits {
  maxSteps: number;
  maxTotalTokens?: number;
  maxCostUsd?: number;
  /** The same tool with the same arguments this many times in a row trips the guard. */
  maxRepeatedToolCalls: number;
}

/** What the session has used so far. */
export interface BudgetUse {
  steps: number;
  totalTokens: number;
  costUsd: number;
  /** Length of the current run of identical tool calls, and the tool's name. */
  repeat: RepeatRun;
}

/** The newest run of identical calls: `fingerprint` hashes name and arguments (computed in the activity). */
export interface RepeatRun {
  fingerprint?: string;
  tool?: string;
  count: number;
}

export const NO_REPEAT: Readonly<RepeatRun> = Object.freeze({ count: 0 });

export type BudgetVerdict =
  | { kind: 'within' }
  | {
      kind: 'exceeded';
      guard: BudgetGuard;
      /** In words, with the numbers: shown by `agentd status` and `watch`. */
      reason: string;
    };

/** Extends the run with the calls of one reply, in order; a call without a fingerprint breaks the run. */
export function extendRepeat(run: RepeatRun, calls: ReadonlyArray<{ name: string; fingerprint?: string }>): RepeatRun {
  let next: RepeatRun = run;
  for (const call of calls) {
    if (call.fingerprint === undefined) next = { count: 0 };
    else if (call.fingerprint === next.fingerprint) next = { ...next, count: next.count + 1 };
    else next = { fingerprint: call.fingerprint, tool: call.name, count: 1 };
  }
  return next;
}

/** The first guard (in the order steps, tokens, cost, repeated call) that the use has reached. */
export function checkBudget(use: BudgetUse, limits: BudgetLimits): BudgetVerdict {
  if (use.steps >= limits.maxSteps) {
    return { kind: 'exceeded', guard: BudgetGuard.steps, reason: `${use.steps} steps taken, maxSteps ${limits.maxSteps}` };
  }
  if (limits.maxTotalTokens !== undefined && use.totalTokens >= limits.maxTotalTokens) {
    return {
      kind: 'exceeded',
      guard: BudgetGuard.tokens,
      reason: `${use.totalTokens} tokens billed, maxTotalTokens ${limits.maxTotalTokens}`,
    };
  }
  if (limits.maxCostUsd !== undefined && use.costUsd >= limits.maxCostUsd) {
    return {
      kind: 'exceeded',
      guard: BudgetGuard.cost,
      reason: `$${use.costUsd.toFixed(4)} spent, maxCostUsd $${limits.maxCostUsd}`,
    };
  }
  if (use.repeat.count >= limits.maxRepeatedToolCalls) {
    return {
      kind: 'exceeded',
      guard: BudgetGuard.repeatedToolCall,
      reason: `${use.repeat.tool ?? 'a tool'} called ${use.repeat.count} times in a row with the same arguments (maxRepeatedToolCalls ${limits.maxRepeatedToolCalls})`,
    };
  }
  return { kind: 'within' };
}

/** What update `approve` carries: raised limits; fields left out keep their value. */
export const ApproveRequestSchema = z
  .object({
    maxSteps: z.number().int().positive().optional(),
    maxTotalTokens: z.number().int().positive().optional(),
    maxCostUsd: z.number().positive().optional(),
    maxRepeatedToolCalls: z.number().int().min(2).optional(),
  })
  .strict();
export type ApproveRequest = z.infer<typeof ApproveRequestSchema>;

export function withApproval(limits: BudgetLimits, request: ApproveRequest): BudgetLimits {
  const next: BudgetLimits = { ...limits };
  if (request.maxSteps !== undefined) next.maxSteps = request.maxSteps;
  if (request.maxTotalTokens !== undefined) next.maxTotalTokens = request.maxTotalTokens;
  if (request.maxCostUsd !== undefined) next.maxCostUsd = request.maxCostUsd;
  if (request.maxRepeatedToolCalls !== undefined) next.maxRepeatedToolCalls = request.maxRepeatedToolCalls;
  return next;
}

/** Field names of the limits, by guard: an approval that leaves its guard tripped names this field. */
const FIELD_OF: Record<BudgetGuard, keyof ApproveRequest> = {
  max_steps: 'maxSteps',
  max_total_tokens: 'maxTotalTokens',
  max_cost_usd: 'maxCostUsd',
  repeated_tool_call: 'maxRepeatedToolCalls',
};

/**
 * Why an approval would not let the session go on, or undefined when it would. An approval
 * acknowledges a repeated call (its run starts over), so only the numeric limits need raising.
 */
export function approvalProblem(use: BudgetUse, limits: BudgetLimits, request: ApproveRequest): string | undefined {
  const verdict = checkBudget({ ...use, repeat: NO_REPEAT }, withApproval(limits, request));
  if (verdict.kind === 'within') return undefined;
  return `${FIELD_OF[verdict.guard]}: still exhausted (${verdict.reason}); approve with a higher limit`;
}
