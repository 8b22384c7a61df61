/** Inputs and results of the delegation activities, shared (type-only) with the workflow (DESIGN §3 "Delegation"). */
import type { z } from 'zod';
import type { ToolFilter } from '../session/toolFilter';
import type { DelegateInput } from '../tools/builtin/delegate';

/** What a `delegate` call asks for, read from the stored call by `readDelegation`. */
export type DelegationRequest = z.output<typeof DelegateInput>;

export interface ReadDelegationInput {
  sessionId: string;
  /** Seq of the assistant message that declared the call. */
  callSeq: number;
  toolCallId: string;
  /** The parent's own tools: a child is given none beyond them. */
  tools?: ToolFilter;
}

export type ReadDelegationResult = { ok: true; request: DelegationRequest } | { ok: false; problem: string };

/**
 * What became of a `delegate` call: refused before a child started, or the child's end. Numbers and
 * ids; the answer is read from the child's rows, and travels here only when none holds it.
 */
export type DelegationOutcome =
  | { kind: 'refused'; reason: string }
  | { kind: 'failed'; childSessionId: string; reason: string }
  | {
      kind: 'ended';
      childSessionId: string;
      outcome: string;
      /** Where the child's answer is stored; absent when it has none stored (ended by a limit). */
      answerSeq?: number;
      /** The answer itself, only without `answerSeq`: a limit's short account, in no row. */
      answer?: string;
      /** Longest answer the parent's context takes whole (`delegation.answerCapChars`). */
      answerCapChars: number;
      steps: number;
      totalTokens: number;
      costUsd: number;
      /** The host whose disk holds the child's workspace; absent when it made none (it called no tool). */
      workspaceHost?: string;
    };
