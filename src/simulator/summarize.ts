/**
 * The scripted summarizer: answers a compaction's summarization request with a summary in the shape
 * its behaviour gives (the asked-for sections, prose, its own headings, lossy, half the facts, JSON,
 * too long, verbose, empty, a refusal), a pure function of the request: the messages its range
 * names (all before the instruction when it names none) and max_tokens.
 */
import type { ChatMessage } from '../model/messages';
import { isSummarizeInstruction, isSummaryMessage } from '../model/summaryFormat';
import { PER_MESSAGE_OVERHEAD_TOKENS } from '../model/tokens';
import { SummarizerBehaviour } from './options';
import { parseDirective, type AssistantReply } from './script';
import { gatherFacts } from './summaryFacts';
import { jsonSummary } from './summaryJson';
import { summaryRegion } from './summaryRegion';
import { halfFactsSummary, lossySummary, ownHeadingsSummary, proseSummary, sectionedSummary } from './summaryStyles';
import { cutToTokens } from './tokenCut';
import { verboseSummary } from './verboseSummary';

/** What the `refusal` summarizer answers, in the words real models refuse with. */
export const REFUSAL_TEXT = "I'm sorry, but I can't help with that.";

/**
 * Behaviours that write past max_tokens, as some servers and proxies let a model do; every other
 * one stops at it, as a provider does (finish_reason `length`).
 */
const IGNORES_MAX_TOKENS: ReadonlySet<SummarizerBehaviour> = new Set([SummarizerBehaviour.long, SummarizerBehaviour.verbose]);

/** A request whose last message is the summarize instruction asks for a summary, not for the next step. */
export function isSummarizationRequest(messages: readonly ChatMessage[]): boolean {
  const last = messages[messages.length - 1];
  return last?.role === 'user' && isSummarizeInstruction(last.content);
}

/** The session's behaviour: its task's `[sim summarizer=NAME]` directive, else the simulator's own. */
export function summarizerFor(messages: readonly ChatMessage[], instance: SummarizerBehaviour): SummarizerBehaviour {
  const task = messages.find((message) => message.role === 'user' && !isSummaryMessage(message.content));
  return (task === undefined ? undefined : parseDirective(task.content ?? '')?.summarizer) ?? instance;
}

export interface SummaryAnswer {
  readonly reply: AssistantReply;
  /** `length` when the answer was cut at max_tokens, as a provider reports it. */
  readonly finishReason: 'stop' | 'length';
}

/** The summary's text under `behaviour`, before any max_tokens cut. */
function summaryText(messages: readonly ChatMessage[], behaviour: SummarizerBehaviour): string {
  const region = summaryRegion(messages);
  const facts = (maxFiles?: number) => gatherFacts(region, maxFiles);
  switch (behaviour) {
    case SummarizerBehaviour.refusal:
      return REFUSAL_TEXT;
    case SummarizerBehaviour.empty:
      return '';
    case SummarizerBehaviour.prose:
      return proseSummary(facts());
    case SummarizerBehaviour.headings:
      return ownHeadingsSummary(facts());
    case SummarizerBehaviour.lossy:
      return lossySummary(facts());
    case SummarizerBehaviour.halfFacts:
      return halfFactsSummary(facts());
    case SummarizerBehaviour.json:
      return jsonSummary(facts());
    case SummarizerBehaviour.verbose:
      // Every fact it is shown: no cap on the files listed.
      return verboseSummary(region.messages, facts(Number.POSITIVE_INFINITY));
    case SummarizerBehaviour.long: {
      // The whole region, twice: longer than what it summarizes however the tokens fall.
      const copy = region.messages.map((message) => [message.content ?? '', ...callArguments(message)].join('\n')).join('\n');
      return `${sectionedSummary(facts())}\n\n## Transcript\n\n${copy}\n\n## Transcript again\n\n${copy}`;
    }
    case SummarizerBehaviour.sectioned:
    case SummarizerBehaviour.fail:
      return sectionedSummary(facts());
  }
}

/**
 * The answer to a summarization request under `behaviour`, cut at `maxTokens` (the request's
 * max_completion_tokens or max_tokens) unless the behaviour ignores it; `fail` is not an answer
 * (the server answers 500 before asking) and is answered like `sectioned` if it gets here.
 */
export function summaryAnswer(messages: readonly ChatMessage[], behaviour: SummarizerBehaviour, maxTokens: number | undefined): SummaryAnswer {
  const text = summaryText(messages, behaviour);
  const full: AssistantReply = { role: 'assistant', content: text };
  if (maxTokens === undefined || IGNORES_MAX_TOKENS.has(behaviour)) return { reply: full, finishReason: 'stop' };
  // Completion tokens are counted as a message (framing included), so the cut leaves room for it.
  const cut = cutToTokens(text, maxTokens - PER_MESSAGE_OVERHEAD_TOKENS);
  return cut === text ? { reply: full, finishReason: 'stop' } : { reply: { role: 'assistant', content: cut }, finishReason: 'length' };
}

function callArguments(message: ChatMessage): string[] {
  return message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.arguments) : [];
}
