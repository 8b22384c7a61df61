/**
 * Delegation's rules (DESIGN §3 "Delegation"): when a session may hand a sub-task to a child
 * session, and what part of its own budget the child is given. Pure: numbers in, a verdict out.
 */
import { z } from 'zod';
import { fnv1aHex } from './idHash';

/** The name the model calls delegation by. */
export const DELEGATE_TOOL = 'delegate';

export const DelegationSettingsSchema = z
  .object({
    /** Whether the model is offered the `delegate` tool. @default true */
    enabled: z.boolean().default(true),
    /** How deep children may nest: 1 lets a session's children not delegate again. @default 2 */
    maxDepth: z.number().int().min(1).max(5).default(2),
    /** `delegate` calls of one reply that start a child; the rest are refused. @default 4 */
    maxChildrenPerStep: z.number().int().min(1).max(32).default(4),
    /** Children one session may start in all. @default 16 */
    maxChildren: z.number().int().min(1).max(1000).default(16),
    /** A child's step limit when the `delegate` call names none. @default 50 */
    childMaxSteps: z.number().int().positive().default(50),
    /**
     * Longest child answer the parent's context takes whole; a longer one keeps its head and tail, and
     * the whole text is written beside the child's files. Real models answer long. @default 8000
     */
    answerCapChars: z.number().int().min(500).default(8000),
  })
  .strict();
export type DelegationSettings = z.output<typeof DelegationSettingsSchema>;

/** Who started a child session, and how deep it is (1 for a child of a session a person started). */
export const DelegatedBySchema = z.object({ sessionId: z.string().min(1), depth: z.number().int().min(1).max(5) }).strict();
export type DelegatedBy = z.infer<typeof DelegatedBySchema>;

/** What a `delegate` call may ask for besides the task; every limit is optional. */
export interface ChildBudgetRequest {
  maxSteps?: number;
  maxTotalTokens?: number;
  maxCostUsd?: number;
}

/** The limits a child is started with. */
export interface ChildLimits {
  maxSteps: number;
  maxTotalTokens?: number;
  maxCostUsd?: number;
}

/**
 * What the parent can still give: its limit less what it has spent and what its running children
 * hold. Undefined for a limit the parent does not have.
 */
export interface ParentRoom {
  maxSteps: number;
  tokens?: number;
  costUsd?: number;
}

/** Whether the model is offered `delegate` at `depth` (0 for a session a person started). */
export function delegationOffered(settings: DelegationSettings, depth: number): boolean {
  return settings.enabled && depth < settings.maxDepth;
}

/** Why one more child may not start, or undefined when it may. */
export function delegationRefusal(
  settings: DelegationSettings,
  depth: number,
  started: { thisStep: number; inAll: number },
): string | undefined {
  if (!settings.enabled) return 'delegation is turned off for this session';
  if (depth >= settings.maxDepth) return `this session is ${depth} level(s) deep and maxDepth is ${settings.maxDepth}: do the work yourself`;
  if (started.thisStep >= settings.maxChildrenPerStep) {
    return `at most ${settings.maxChildrenPerStep} delegate calls of one reply start a child (maxChildrenPerStep); delegate the rest in a later step`;
  }
  if (started.inAll >= settings.maxChildren) return `this session has started ${started.inAll} children, its maxChildren`;
  return undefined;
}

/**
 * A child's limits, carved out of the parent's room. A limit the call names is held to the room; one
 * it leaves out is an equal share of the room among the `shares` children starting now and the
 * parent itself, so siblings started side by side cannot take all of it between them.
 */
export function carveChildBudget(
  room: ParentRoom,
  requested: ChildBudgetRequest,
  shares: number,
  defaultSteps: number,
): { kind: 'granted'; limits: ChildLimits } | { kind: 'refused'; reason: string } {
  if (room.tokens !== undefined && room.tokens <= 0) return { kind: 'refused', reason: 'the session has no tokens left to give (maxTotalTokens)' };
  if (room.costUsd !== undefined && room.costUsd <= 0) return { kind: 'refused', reason: 'the session has no budget left to give (maxCostUsd)' };
  const split = shares + 1;
  const limits: ChildLimits = { maxSteps: Math.min(requested.maxSteps ?? defaultSteps, room.maxSteps) };
  const tokens = carve(room.tokens, requested.maxTotalTokens, split);
  if (tokens !== undefined) limits.maxTotalTokens = Math.max(1, Math.floor(tokens));
  const costUsd = carve(room.costUsd, requested.maxCostUsd, split);
  if (costUsd !== undefined) limits.maxCostUsd = costUsd;
  return { kind: 'granted', limits };
}

function carve(room: number | undefined, requested: number | undefined, split: number): number | undefined {
  if (room === undefined) return requested;
  return Math.min(requested ?? room / split, room);
}

/**
 * The child's session id: the parent's and the seq of the call's result, so it is the same on every
 * replay and unique within the parent. A long parent id is cut and marked with a hash of the whole,
 * keeping the id within the 128 characters a session id may have.
 */
export function childSessionId(parentId: string, seq: number): string {
  const suffix = `.d${seq}`;
  const room = 128 - suffix.length;
  if (parentId.length <= room) return parentId + suffix;
  return `${parentId.slice(0, room - 9)}.${fnv1aHex(parentId)}${suffix}`;
}
