/**
 * The scripted summarizer: answers a compaction's summarization request with a short summary in
 * SUMMARY_SECTIONS, a pure function of the messages before the instruction.
 */
import type { ChatMessage } from '../model/messages';
import { isSummarizeInstruction, isSummaryMessage, SUMMARY_SECTIONS } from '../model/summaryFormat';
import { SummaryFault } from './options';
import { firstWords, SimTool, stepOfCallId, withoutDirective, type AssistantReply } from './script';
import { bulletItems, progressLines, summaryProgress, summarySections, type SummaryProgress } from './summaryParts';

type Section = (typeof SUMMARY_SECTIONS)[number];

/** Newest files kept: enough to be useful, few enough to keep the summary within ~600 tokens. */
export const MAX_SUMMARY_FILES = 30;
/** Words of the task quoted as the goal. */
const GOAL_WORDS = 24;
/** Lines starting with this in a user message are facts a summary must keep; benchmarks check they survive. */
export const CONSTRAINT_PREFIX = 'CONSTRAINT:';
/** Written when nothing was stated; never carried into the next summary, so it cannot pile up next to real ones. */
const NO_CONSTRAINTS = 'None stated beyond the task itself.';

/** A request whose last message is the summarize instruction asks for a summary, not for the next step. */
export function isSummarizationRequest(messages: readonly ChatMessage[]): boolean {
  const last = messages[messages.length - 1];
  return last?.role === 'user' && isSummarizeInstruction(last.content);
}

/** What the summary says, gathered from the messages and any earlier summary among them. */
interface Facts {
  readonly goal: string;
  readonly constraints: readonly string[];
  /** The newest MAX_SUMMARY_FILES files, oldest first. */
  readonly files: readonly string[];
  /** Files left out by the cap. */
  readonly droppedFiles: number;
  readonly progress: SummaryProgress;
  readonly finished: boolean;
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

function gatherFacts(messages: readonly ChatMessage[]): Facts {
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
      const sections = summarySections(message.content);
      carriedGoal ??= sections.get('Goal')?.join(' ');
      for (const line of sections.get('Constraints') ?? []) {
        const item = line.startsWith('- ') ? line.slice(2).trim() : line;
        if (item !== NO_CONSTRAINTS) constraints.add(item);
      }
      for (const file of bulletItems(sections.get('Files touched'))) files.add(file);
      previous = summaryProgress(message.content);
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

function sectionLines(section: Section, facts: Facts): string[] {
  const next = facts.progress.lastStep === undefined ? undefined : facts.progress.lastStep + 1;
  switch (section) {
    case 'Goal':
      return [facts.goal];
    case 'Constraints':
      return (facts.constraints.length === 0 ? [NO_CONSTRAINTS] : facts.constraints).map((line) => `- ${line}`);
    case 'Progress':
      return progressLines(facts.progress);
    case 'Decisions':
      return [
        '- Keep working notes under notes/ and re-read them rather than relying on old tool output.',
        '- Treat the passing test output as the baseline; re-run the checks after each change.',
      ];
    case 'Files touched': {
      const lines = facts.files.length === 0 ? ['None yet.'] : facts.files.map((file) => `- ${file}`);
      // Not a bullet, so the next summary does not carry the note as if it were a file.
      return facts.droppedFiles > 0 ? [...lines, `(${facts.droppedFiles} older files not listed)`] : lines;
    }
    case 'Open problems':
      return facts.finished
        ? ['- None known; the task was reported finished.']
        : ['- Not yet checked whether the remaining files need the same change.'];
    case 'Next steps':
      if (facts.finished) return ['- Answer follow-up messages; the task itself is done.'];
      return next === undefined
        ? ['- Carry on from where the recent messages leave off.']
        : [`- Continue with step ${next}; re-read the newest notes file first.`];
  }
}

/** The summary text: one `## Section` per SUMMARY_SECTIONS entry, in order. */
export function writeSummary(messages: readonly ChatMessage[]): string {
  const facts = gatherFacts(messages);
  return SUMMARY_SECTIONS.map((section) => [`## ${section}`, ...sectionLines(section, facts)].join('\n')).join('\n\n');
}

function say(content: string): AssistantReply {
  return { role: 'assistant', content };
}

/** The reply to a summarization request; `fault` makes it the kind of bad summary a real model can give. */
export function summaryReply(messages: readonly ChatMessage[], fault?: SummaryFault): AssistantReply {
  const before = messages.slice(0, -1);
  if (fault === SummaryFault.garbage) {
    return say(`Sure! So far ${before.length} messages went by and the work is going well. Let me know what else you need.`);
  }
  const summary = writeSummary(before);
  if (fault !== SummaryFault.long) return say(summary);
  // The whole input, twice: longer than what it summarizes however the tokens fall.
  const copy = before.map((message) => [message.content ?? '', ...callArguments(message)].join('\n')).join('\n');
  return say(`${summary}\n\n## Transcript\n\n${copy}\n\n## Transcript again\n\n${copy}`);
}

function callArguments(message: ChatMessage): string[] {
  return message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.function.arguments) : [];
}
