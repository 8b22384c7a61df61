/**
 * The scripted summarizer: answers a compaction's summarization request with a summary in the shape
 * its behaviour gives (the asked-for sections, prose, its own headings, lossy, too long, a refusal),
 * a pure function of the messages before the instruction.
 */
import type { ChatMessage } from '../model/messages';
import { isSummarizeInstruction, isSummaryMessage } from '../model/summaryFormat';
import { SummarizerBehaviour } from './options';
import { firstWords, parseDirective, SimTool, stepOfCallId, withoutDirective, type AssistantReply } from './script';
import type { SummaryProgress } from './summaryParts';
import { lossySummary, ownHeadingsSummary, proseSummary, readSummary, sectionedSummary, type SummaryFacts } from './summaryStyles';

/** Newest files kept: enough to be useful, few enough to keep the summary within ~600 tokens. */
const MAX_SUMMARY_FILES = 30;
/** Words of the task quoted as the goal. */
const GOAL_WORDS = 24;
/** Lines starting with this in a user message are facts a summary must keep; benchmarks check they survive. */
const CONSTRAINT_PREFIX = 'CONSTRAINT:';
/** What the `refusal` summarizer answers, in the words real models refuse with. */
export const REFUSAL_TEXT = "I'm sorry, but I can't help with that.";

/** A request whose last message is the summarize instruction asks for a summary, not for the next step. */
export function isSummarizationRequest(messages: readonly ChatMessage[]): boolean {
  const last = messages[messages.length - 1];
  return last?.role === 'user' && isSummarizeInstruction(last.content);
}

function pathArgument(argumentsJson: string): string | undefined {
  try {
    const args: unknown = JSON.parse(argumentsJson);
    const path = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)['path'] : undefined;
    return typeof path === 'string' && path !== '' ? path : undefined;
  } catch {
    return undefined; // arguments the model garbled touched no file
  }
}

function gatherFacts(messages: readonly ChatMessage[]): SummaryFacts {
  let goal: string | undefined;
  let carriedGoal: string | undefined;
  // Insertion-ordered sets; a file touched again moves to the end, so the cap keeps the newest.
  const constraints = new Set<string>();
  const files = new Set<string>();
  let previous: SummaryProgress = {};
  let lastStep: number | undefined;
  let highestStep: number | undefined;
  let toolCalls = 0;
  let finished = false;

  for (const message of messages) {
    if (message.role === 'user' && isSummaryMessage(message.content)) {
      const carried = readSummary(message.content);
      carriedGoal ??= carried.goal;
      for (const item of carried.constraints) constraints.add(item);
      for (const file of carried.files) files.add(file);
      previous = carried.progress;
    } else if (message.role === 'user') {
      const lines = message.content.split('\n').map((line) => line.trim());
      const stated = lines.filter((line) => line.startsWith(CONSTRAINT_PREFIX));
      for (const line of stated) constraints.add(withoutDirective(line));
      // The task opens the conversation; a user message after an earlier summary is a later turn, not the goal.
      if (goal === undefined && carriedGoal === undefined) {
        const asked = lines.filter((line) => !line.startsWith(CONSTRAINT_PREFIX)).join(' ');
        goal = firstWords(asked === '' ? message.content : asked, GOAL_WORDS);
      }
    } else if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        toolCalls += 1;
        const step = stepOfCallId(call.id);
        if (step !== undefined) {
          lastStep = step;
          highestStep = Math.max(highestStep ?? 0, step);
        }
        finished ||= call.function.name === SimTool.finish;
        if (call.function.name === SimTool.writeFile || call.function.name === SimTool.readFile) {
          const path = pathArgument(call.function.arguments);
          if (path !== undefined) {
            files.delete(path);
            files.add(path);
          }
        }
      }
    }
  }

  const highest = [previous.highestStep, highestStep].filter((step): step is number => step !== undefined);
  const last = lastStep ?? previous.lastStep;
  return {
    goal: goal ?? carriedGoal ?? 'Unknown: no task message was in the summarized part.',
    constraints: [...constraints],
    files: [...files].slice(-MAX_SUMMARY_FILES),
    droppedFiles: Math.max(0, files.size - MAX_SUMMARY_FILES),
    progress: {
      ...(last === undefined ? {} : { lastStep: last }),
      ...(highest.length === 0 ? {} : { highestStep: Math.max(...highest) }),
      toolCalls: (previous.toolCalls ?? 0) + toolCalls,
    },
    finished,
  };
}

/** The sectioned summary, as the instruction asks for it. */
function writeSummary(messages: readonly ChatMessage[]): string {
  return sectionedSummary(gatherFacts(messages));
}

function say(content: string): AssistantReply {
  return { role: 'assistant', content };
}

/** The session's behaviour: its task's `[sim summarizer=NAME]` directive, else the simulator's own. */
export function summarizerFor(messages: readonly ChatMessage[], instance: SummarizerBehaviour): SummarizerBehaviour {
  const task = messages.find((message) => message.role === 'user' && !isSummaryMessage(message.content));
  return (task === undefined ? undefined : parseDirective(task.content ?? '')?.summarizer) ?? instance;
}

/**
 * The reply to a summarization request under `behaviour`; `fail` is not a reply (the server answers
 * 500 before asking) and is answered like `sectioned` if it gets here.
 */
export function summaryReply(messages: readonly ChatMessage[], behaviour: SummarizerBehaviour = SummarizerBehaviour.sectioned): AssistantReply {
  const before = messages.slice(0, -1);
  switch (behaviour) {
    case SummarizerBehaviour.refusal:
      return say(REFUSAL_TEXT);
    case SummarizerBehaviour.prose:
      return say(proseSummary(gatherFacts(before)));
    case SummarizerBehaviour.headings:
      return say(ownHeadingsSummary(gatherFacts(before)));
    case SummarizerBehaviour.lossy:
      return say(lossySummary(gatherFacts(before)));
    case SummarizerBehaviour.long: {
      // The whole input, twice: longer than what it summarizes however the tokens fall.
      const copy = before.map((message) => [message.content ?? '', ...callArguments(message)].join('\n')).join('\n');
      return say(`${writeSummary(before)}\n\n## Transcript\n\n${copy}\n\n## Transcript again\n\n${copy}`);
    }
    case SummarizerBehaviour.sectioned:
    case SummarizerBehaviour.fail:
      return say(writeSummary(before));
  }
}

function callArguments(message: ChatMessage): string[] {
  return message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.arguments) : [];
}
