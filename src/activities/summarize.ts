/**
 * The summary activity: the older region of the context goes to the session's own model, which
 * writes a summary (sections asked for, any shape accepted); a region too big for one request is
 * summarized in chunks, each merging the summary so far. The summary is stored as a user message
 * under a workflow seq, the model's text under agentd's header.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ChatMessage, ToolSpec } from '../model/messages';
import { judgeSummary } from '../model/summaryAcceptance';
import { summaryMessageHeader } from '../model/summaryFormat';
import { countMessageTokens, countToolTokens } from '../model/tokens';
import type { MessageMeasure } from '../policy/ledger';
import { fromSeqRuns } from '../policy/seqRuns';
import type { StoredMessage } from '../store/transcriptStore';
import { toolsOf } from './toolsOf';
import type { ActivityDeps } from './deps';
import { withHeartbeat } from './heartbeat';
import { measureOf } from './measure';
import { toModelFailure } from './modelFailure';
import { buildSessionMemory, sessionMemoryMessage } from './sessionMemory';
import { summarizeInstruction } from './summarizePrompt';
import { usageOf } from './usage';
import {
  ActivityFailureType,
  type ModelUsage,
  type SummarizeInput,
  type SummarizeResult,
  type SummarizeSpent,
  type SummaryRejectedDetails,
} from './types';

/** Room kept free in every summary request besides the summary budget: chat overheads, rounding. */
const REQUEST_MARGIN_TOKENS = 1024;

export function createSummarize(deps: ActivityDeps) {
  const { store, model } = deps;

  async function ask(messages: ChatMessage[], input: SummarizeInput, usage: ModelUsage, toolSpecs: ToolSpec[]): Promise<string> {
    const completion = await withHeartbeat((signal) =>
      model.chat.completions
        .create(
          // Same tools as the session's own calls, so the cached prefix matches; none may be called.
          { model: input.model, messages, tools: toolSpecs, tool_choice: 'none', max_tokens: input.budgetTokens },
          { signal },
        )
        .catch((error: unknown) => {
          throw toModelFailure(error);
        }),
    );
    const reported = usageOf(completion);
    usage.promptTokens += reported.promptTokens;
    usage.completionTokens += reported.completionTokens;
    if (reported.cachedTokens !== undefined) usage.cachedTokens = (usage.cachedTokens ?? 0) + reported.cachedTokens;
    return completion.choices?.[0]?.message?.content ?? '';
  }

  /** The memory block beside the summary, built from the store without a model; a retry finds it stored. */
  async function storeMemory(input: SummarizeInput): Promise<MessageMeasure | undefined> {
    if (input.memorySeq === undefined) return undefined;
    const existing = await store.get(input.sessionId, input.memorySeq);
    if (existing) return measureOf(existing);
    const pinned = fromSeqRuns(input.pinned);
    const text = buildSessionMemory({
      rows: await store.list(input.sessionId),
      taskSeq: pinned[pinned.length - 1] ?? 0,
      summarized: input.covers,
      kept: input.kept ?? [],
      budgetTokens: input.memoryBudgetTokens ?? 0,
    });
    return measureOf(await store.put(input.sessionId, input.memorySeq, sessionMemoryMessage(text), { kind: 'memory' }));
  }

  return async function summarize(input: SummarizeInput): Promise<SummarizeResult> {
    const existing = await store.get(input.sessionId, input.seq);
    if (existing) {
      const memory = await storeMemory(input);
      const stored = { measure: measureOf(existing), usage: { promptTokens: 0, completionTokens: 0 }, calls: 0, possiblyBilledCalls: 0 };
      return { ...stored, ...(memory ? { memory } : {}) };
    }

    // A retry with nothing stored: the attempt before may have been answered (and billed) and then
    // lost with its worker. It cannot be told from a retry after an endpoint error, so it is "possibly".
    const spent: SummarizeSpent = {
      usage: { promptTokens: 0, completionTokens: 0 },
      calls: 0,
      possiblyBilledCalls: Context.current().info.attempt > 1 ? 1 : 0,
    };
    try {
      return await summarizeRegion(input, spent);
    } catch (error) {
      throw withSpent(error, spent);
    }
  };

  async function summarizeRegion(input: SummarizeInput, spent: SummarizeSpent): Promise<SummarizeResult> {
    const toolSpecs = (await toolsOf(deps, input.sessionId)).specs();
    const toolTokens = countToolTokens(toolSpecs);
    const pinned = (await store.getMany(input.sessionId, fromSeqRuns(input.pinned))).map((row) => row.message);
    const region = await store.getMany(input.sessionId, fromSeqRuns(input.region));
    const instruction: ChatMessage = { role: 'user', content: summarizeInstruction(input.budgetTokens) };
    const fixedTokens =
      toolTokens + sum(pinned.map(countMessageTokens)) + countMessageTokens(instruction) + input.budgetTokens + REQUEST_MARGIN_TOKENS;
    const chunks = chunkByStep(region, input.contextWindow - fixedTokens);

    let summary: ChatMessage | undefined;
    for (const chunk of chunks) {
      const text = await ask([...pinned, ...(summary ? [summary] : []), ...chunk.map((row) => row.message), instruction], input, spent.usage, toolSpecs);
      spent.calls += 1;
      summary = { role: 'user', content: text };
    }
    const text = acceptedSummary(summary?.content ?? '', region, spent);
    const covered = fromSeqRuns(input.covers);
    const body: ChatMessage = {
      role: 'user',
      content: `${summaryMessageHeader(covered.length, covered[0] ?? 0, covered[covered.length - 1] ?? 0)}\n\n${text}`,
    };
    const saved = await store.put(input.sessionId, input.seq, body, { kind: 'summary', covers: input.covers, usage: spent.usage });
    const memory = await storeMemory(input);
    return { measure: measureOf(saved), ...spent, ...(memory ? { memory } : {}) };
  }
}

/**
 * Splits the region into requests that fit, only where a step starts (never between an assistant
 * message and its tool results: a strict endpoint rejects such a request).
 */
function chunkByStep(region: StoredMessage[], budget: number): StoredMessage[][] {
  const chunks: StoredMessage[][] = [];
  let current: StoredMessage[] = [];
  let tokens = 0;
  for (const row of region) {
    const startsStep = row.message.role !== 'tool';
    if (startsStep && current.length > 0 && tokens + row.tokens > budget) {
      chunks.push(current);
      current = [];
      tokens = 0;
    }
    current.push(row);
    tokens += row.tokens;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * The model's answer as the summary, whatever its headings (DESIGN §5 "Any model's summary counts"),
 * or a non-retryable SummaryRejected: an empty answer, a refusal or one not shorter than the region
 * would come back the same if the request were sent again.
 */
function acceptedSummary(text: string, region: StoredMessage[], spent: SummarizeSpent): string {
  const regionTokens = sum(region.map((row) => row.tokens));
  const verdict = judgeSummary(text, countMessageTokens({ role: 'user', content: text.trim() }), regionTokens);
  if (verdict.accepted) return verdict.text;
  const details: SummaryRejectedDetails = { reason: verdict.reason, ...spent };
  throw ApplicationFailure.create({ type: ActivityFailureType.summaryRejected, message: verdict.message, nonRetryable: true, details: [details] });
}

/**
 * The failure with what the attempt cost as its first detail, so the workflow bills answered calls
 * even when the attempt failed. Failures that already carry details (a rejection) and those of an
 * attempt that cost nothing are passed on as they are.
 */
function withSpent(error: unknown, spent: SummarizeSpent): unknown {
  if (!(error instanceof ApplicationFailure) || (error.details?.length ?? 0) > 0) return error;
  if (spent.calls === 0 && spent.possiblyBilledCalls === 0) return error;
  return ApplicationFailure.create({
    type: error.type ?? undefined,
    message: error.message,
    nonRetryable: error.nonRetryable === true,
    ...(error.nextRetryDelay !== undefined ? { nextRetryDelay: error.nextRetryDelay } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
    details: [spent],
  });
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
