/**
 * The model call with the reactive path of DESIGN §5: an overflow compacts (requested by
 * `reactive`) and retries, a second truncates and retries, a third fails the session; when neither
 * could shrink the refused request, the session fails at once instead of sending it again.
 */
import { ActivityFailure, ApplicationFailure, patched } from '@temporalio/workflow';
import { ActivityFailureType, type CallModelResult } from '../activities/types';
import { CompactionRequest, toSeqRuns, TruncationCause } from '../policy';
import type { SessionInput } from '../session/input';
import type { ToolFilter } from '../session/toolFilter';
import type { StepTrace } from '../telemetry/stepTrace';
import type { SessionActivities } from './activityOptions';
import type { CompactionController } from './compactionController';
import type { SessionPosition } from './compactionRecord';
import type { SeqAllocator } from './seqAllocator';
import type { SessionTranscript } from './sessionTranscript';
import type { StepTelemetry } from './stepTelemetry';

export interface ModelCallParts {
  sessionId: string;
  input: SessionInput;
  /** What every model and tool activity is told besides its own input: the session's tools and the step's trace. */
  activityContext(): { tools?: ToolFilter; trace?: StepTrace };
  activities: Pick<SessionActivities, 'callModel'>;
  transcript: SessionTranscript;
  seqs: SeqAllocator;
  compaction: CompactionController;
  position(): SessionPosition;
  /** Decides, carries out and adopts a compaction of the live context. */
  compactContext(requestedBy: CompactionRequest): Promise<unknown>;
  /** The step's telemetry: a compaction outside `compactContext` gets its span there too. */
  telemetry: Pick<StepTelemetry, 'compaction'>;
  /** Marks the session failed and returns the failure to throw. */
  fail(message: string, type: string, cause: Error): ApplicationFailure;
}

/** Marks histories where an overflow that nothing can shrink fails at once, with a notice (DESIGN §5). */
const OVERFLOW_FAILS_ONCE_PATCH = 'overflow-fails-once';

/** The reply's seq is allocated once: a rejected call stored nothing under it. */
export async function callModelWithinWindow(parts: ModelCallParts): Promise<CallModelResult> {
  const { transcript, compaction } = parts;
  const seq = parts.seqs.next();
  for (let overflows = 0; ; overflows++) {
    const sent = [...transcript.entries];
    try {
      const reply = await parts.activities.callModel({
        sessionId: parts.sessionId,
        seq,
        context: toSeqRuns(sent.map((entry) => entry.seq)),
        model: parts.input.model,
        maxToolCalls: parts.input.maxToolCallsPerReply,
        ...parts.activityContext(),
        ...(parts.input.maxOutputTokens ? { maxOutputTokens: parts.input.maxOutputTokens } : {}),
      });
      compaction.noteModelCall(sent, reply);
      return reply;
    } catch (error) {
      if (!isContextOverflow(error)) throw error;
      const at = parts.position();
      if (overflows === 0) {
        await parts.compactContext(CompactionRequest.reactive);
      } else if (overflows === 1) {
        const truncating = () => compaction.truncateNow(transcript.entries, TruncationCause.repeatedOverflow, CompactionRequest.reactive, at);
        transcript.adopt((await parts.telemetry.compaction(compaction.notices, truncating)).ledger);
      } else {
        throw parts.fail(`the model rejected the context as too long three times at step ${at.step}`, ActivityFailureType.contextOverflow, error as Error);
      }
      // Sending the refused request again unchanged would only be refused again (and maybe billed).
      if (sameSeqs(sent, transcript.entries) && patched(OVERFLOW_FAILS_ONCE_PATCH)) {
        const why =
          `the model rejected the context as too long at step ${at.step} and nothing is left to compact or drop: ` +
          `what is left (the pinned system prompt and task, any summary and session memory, the newest step) is about ${compaction.estimate(sent)} tokens ` +
          `(contextWindow ${parts.input.contextWindow}); shorten them or use a model with a larger window`;
        compaction.noteCannotFit(sent, why, at);
        throw parts.fail(why, ActivityFailureType.contextOverflow, error as Error);
      }
    }
  }
}

function sameSeqs(a: readonly { seq: number }[], b: readonly { seq: number }[]): boolean {
  return a.length === b.length && a.every((entry, index) => entry.seq === b[index]?.seq);
}

function isContextOverflow(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === ActivityFailureType.contextOverflow;
}
