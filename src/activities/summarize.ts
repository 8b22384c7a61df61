/**
 * The summary activity: the older region of the context goes to the session's own model, which
 * writes a summary (sections asked for, any shape accepted); a region too big for one request is
 * summarized in chunks, each merging the summary so far. The summary is stored as a user message
 * under a workflow seq, the model's text under agentd's header.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ChatMessage, ToolSpec } from '../model/messages';
import { judgeSummary } from '../model/summaryAcceptance';
import { rangeWithin, summaryMessageHeader, SummaryRequestShape, type SummaryRange } from '../model/summaryFormat';
import { trimSummaryToBudget } from '../model/summaryTrim';
import { countTextTokens } from '../model/textTokens';
import { countMessageTokens, countToolTokens } from '../model/tokens';
import type { MessageMeasure } from '../policy/ledger';
import { fromSeqRuns } from '../policy/seqRuns';
import type { StoredMessage } from '../store/transcriptStore';
import { toolsOf } from './toolsOf';
import type { ActivityDeps } from './deps';
import { measureOf } from './measure';
import { storedSummarySpent, type StoredSummaryMeta } from './storedSummarySpent';
import { viewOf } from './cutToolResults';
import { writeSessionMemory } from './storeSessionMemory';
import { summarizeInstruction } from './summarizePrompt';
import { requestChat } from './spans';
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
  const { store } = deps;

  async function ask(messages: ChatMessage[], input: SummarizeInput, usage: ModelUsage, toolSpecs: ToolSpec[]): Promise<string> {
    const completion = await requestChat(
      deps,
      { sessionId: input.sessionId, trace: input.trace, role: 'summary' },
      // Same tools as the session's own calls, so the cached prefix matches; none may be called.
      { model: input.model, messages, tools: toolSpecs, tool_choice: 'none', max_tokens: input.budgetTokens },
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
    return writeSessionMemory(store, {
      sessionId: input.sessionId,
      memorySeq: input.memorySeq,
      pinned: input.pinned,
      summarized: input.covers,
      kept: input.kept ?? [],
      budgetTokens: input.memoryBudgetTokens ?? 0,
    });
  }

  return async function summarize(input: SummarizeInput): Promise<SummarizeResult> {
    const existing = await store.get(input.sessionId, input.seq);
    if (existing) {
      const memory = await storeMemory(input);
      // The attempt that stored it was billed, and its result never reached the workflow: count it here.
      const stored = { measure: measureOf(existing), ...storedSummarySpent(existing.meta) };
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
    const toolSpecs = (await toolsOf(deps, input.sessionId, input.tools)).specs();
    const toolTokens = countToolTokens(toolSpecs);
    const region = await store.getMany(input.sessionId, fromSeqRuns(input.region));
    const continued = await continuedRequest(input, toolTokens);
    let answer: string;
    if (continued) {
      answer = await ask([...continued.messages, instructionMessage(input.budgetTokens, continued.range)], input, spent.usage, toolSpecs);
      spent.calls += 1;
    } else {
      answer = await standaloneSummary(input, region, toolSpecs, toolTokens, spent);
    }
    const answeredTokens = input.trimToBudget === true ? countTextTokens(answer) : 0;
    const fitted = input.trimToBudget === true ? trimSummaryToBudget(answer, input.budgetTokens, answeredTokens) : answer;
    const text = acceptedSummary(fitted, region, spent);
    const covered = fromSeqRuns(input.covers);
    const body: ChatMessage = {
      role: 'user',
      content: `${summaryMessageHeader(covered.length, covered[0] ?? 0, covered[covered.length - 1] ?? 0)}\n\n${text}`,
    };
    const cost: StoredSummaryMeta = { usage: spent.usage, calls: spent.calls };
    const saved = await store.put(input.sessionId, input.seq, body, { kind: 'summary', covers: input.covers, ...cost });
    const memory = await storeMemory(input);
    return {
      measure: measureOf(saved),
      ...spent,
      request: continued ? SummaryRequestShape.continued : SummaryRequestShape.standalone,
      ...(fitted !== answer ? { trimmedFromTokens: answeredTokens } : {}),
      ...(memory ? { memory } : {}),
    };
  }

  /**
   * The session's previous request as it was sent, when it holds the region in one run and, with the
   * instruction and the summary's budget, still fits the window
   * (DESIGN §5 "Summary requests continue the session"); else undefined, and the summary is asked for on its own.
   */
  async function continuedRequest(input: SummarizeInput, toolTokens: number): Promise<{ messages: ChatMessage[]; range: SummaryRange } | undefined> {
    if (!input.request) return undefined;
    const seqs = fromSeqRuns(input.request);
    const range = rangeWithin(seqs, fromSeqRuns(input.region));
    if (!range) return undefined;
    const rows = await store.getMany(input.sessionId, seqs);
    if (rows.length !== seqs.length) return undefined;
    const instructionTokens = countMessageTokens(instructionMessage(input.budgetTokens, range));
    const needed = toolTokens + sum(rows.map((row) => row.tokens)) + instructionTokens + input.budgetTokens + REQUEST_MARGIN_TOKENS;
    return needed <= input.contextWindow ? { messages: rows.map((row) => row.message), range } : undefined;
  }

  /** Pinned messages, then the region in chunks that fit, each merging the summary so far; the last answer. */
  async function standaloneSummary(input: SummarizeInput, region: StoredMessage[], toolSpecs: ToolSpec[], toolTokens: number, spent: SummarizeSpent): Promise<string> {
    const pinned = (await store.getMany(input.sessionId, fromSeqRuns(input.pinned))).map((row) => row.message);
    const instruction = instructionMessage(input.budgetTokens);
    const fixedTokens =
      toolTokens + sum(pinned.map(countMessageTokens)) + countMessageTokens(instruction) + input.budgetTokens + REQUEST_MARGIN_TOKENS;
    // Every chunk after the first also carries the summary so far, up to the summary budget.
    const room = input.contextWindow - fixedTokens;
    const chunks = chunkByStep(region, room, room - input.budgetTokens);

    let summary: ChatMessage | undefined;
    for (const chunk of chunks) {
      const text = await ask([...pinned, ...(summary ? [summary] : []), ...chunk.map((part) => part.message), instruction], input, spent.usage, toolSpecs);
      spent.calls += 1;
      summary = { role: 'user', content: text };
    }
    return summary?.content ?? '';
  }
}

function instructionMessage(budgetTokens: number, range?: SummaryRange): ChatMessage {
  return { role: 'user', content: summarizeInstruction(budgetTokens, range) };
}

/** A message as one summary request carries it: the original, or a view of it when its step is too big. */
interface RequestPart {
  readonly message: ChatMessage;
  readonly tokens: number;
}

/**
 * Characters each tool result or tool-call argument set keeps, level by level, when one step alone
 * is too big for a summary request (DESIGN §5 "Summary requests fit the window").
 */
const SUMMARY_VIEW_LEVELS = [5_120, 2_048, 512, 128] as const;
/** Share of a view's characters taken from the head (the rest from the tail, where errors and totals are). */
const VIEW_HEAD_SHARE = 0.8;

/**
 * Splits the region into requests that fit, only where a step starts (never between an assistant
 * message and its tool results: a strict endpoint rejects such a request). The first request has
 * `firstBudget` tokens for the region, later ones `restBudget` (they carry the summary so far). A
 * step too big for a request on its own is sent as views of its results and tool-call arguments;
 * the originals stay in the store.
 */
function chunkByStep(region: StoredMessage[], firstBudget: number, restBudget: number): RequestPart[][] {
  const chunks: RequestPart[][] = [];
  let current: RequestPart[] = [];
  let tokens = 0;
  const budget = (): number => (chunks.length === 0 ? firstBudget : restBudget);
  for (const step of stepsOf(region)) {
    let parts: RequestPart[] = step.map((row) => ({ message: row.message, tokens: row.tokens }));
    let weight = sum(parts.map((part) => part.tokens));
    if (current.length > 0 && tokens + weight > budget()) {
      chunks.push(current);
      current = [];
      tokens = 0;
    }
    if (weight > budget()) {
      parts = viewsToFit(step, budget());
      weight = sum(parts.map((part) => part.tokens));
    }
    current.push(...parts);
    tokens += weight;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Rows grouped into steps: a message that is not a tool result, and the tool results after it. */
function stepsOf(region: readonly StoredMessage[]): StoredMessage[][] {
  const steps: StoredMessage[][] = [];
  for (const row of region) {
    const last = steps[steps.length - 1];
    if (row.message.role === 'tool' && last) last.push(row);
    else steps.push([row]);
  }
  return steps;
}

/** The step with its large messages cut, one level smaller at a time, until it fits `budget` (or the levels run out). */
function viewsToFit(step: readonly StoredMessage[], budget: number): RequestPart[] {
  let parts: RequestPart[] = [];
  for (const level of SUMMARY_VIEW_LEVELS) {
    const head = Math.round(level * VIEW_HEAD_SHARE);
    parts = step.map((row) => {
      if (row.chars <= level) return { message: row.message, tokens: row.tokens };
      const view = viewOf(row.message, { sourceSeq: row.seq, headChars: head, tailChars: level - head }) ?? row.message;
      return { message: view, tokens: countMessageTokens(view) };
    });
    if (sum(parts.map((part) => part.tokens)) <= budget) break;
  }
  return parts;
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
 * attempt that cost nothing are passed on as they are. An attempt that had requests answered (a
 * chunked region failing partway) is not retried: the workflow sees only the last attempt's failure,
 * so a retry would lose what this one was billed, and would pay for the same chunks again.
 */
function withSpent(error: unknown, spent: SummarizeSpent): unknown {
  if (!(error instanceof ApplicationFailure) || (error.details?.length ?? 0) > 0) return error;
  if (spent.calls === 0 && spent.possiblyBilledCalls === 0) return error;
  return ApplicationFailure.create({
    type: error.type ?? undefined,
    message: error.message,
    nonRetryable: error.nonRetryable === true || spent.calls > 0,
    ...(error.nextRetryDelay !== undefined ? { nextRetryDelay: error.nextRetryDelay } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
    details: [spent],
  });
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
