/**
 * The facts the scripted summarizer finds in the messages it is asked to summarize: the goal, the
 * user's CONSTRAINT lines, the files touched and where the work stands, an earlier summary's merged
 * in. Pure: a region in, facts out.
 */
import { isSummaryMessage } from '../model/summaryFormat';
import { firstWords, SimTool, stepOfCallId, withoutDirective } from './script';
import type { SummaryProgress } from './summaryParts';
import type { SummaryRegion } from './summaryRegion';
import { readSummary, type SummaryFacts } from './summaryStyles';

/** Newest files kept by default: enough to be useful, few enough to keep the summary within ~600 tokens. */
const MAX_SUMMARY_FILES = 30;
/** Words of the task quoted as the goal. */
const GOAL_WORDS = 24;
/** Lines starting with this in a user message are facts a summary must keep; benchmarks check they survive. */
const CONSTRAINT_PREFIX = 'CONSTRAINT:';

function pathArgument(argumentsJson: string): string | undefined {
  try {
    const args: unknown = JSON.parse(argumentsJson);
    const path = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)['path'] : undefined;
    return typeof path === 'string' && path !== '' ? path : undefined;
  } catch {
    return undefined; // arguments the model garbled touched no file
  }
}

function trimmedLines(text: string): string[] {
  return text.split('\n').map((line) => line.trim());
}

/** The goal a user message states: its first words, CONSTRAINT lines and directives left out. */
function goalOf(text: string): string {
  const asked = trimmedLines(text).filter((line) => !line.startsWith(CONSTRAINT_PREFIX)).join(' ');
  return firstWords(asked === '' ? text : asked, GOAL_WORDS);
}

/**
 * The facts of the region's messages. Its pinned task, when the region starts after it, gives the
 * goal and nothing else, since the instruction asks for the range only. The newest `maxFiles` files
 * are listed, the older ones counted in `droppedFiles`.
 */
export function gatherFacts(region: SummaryRegion, maxFiles = MAX_SUMMARY_FILES): SummaryFacts {
  let goal: string | undefined = region.task?.role === 'user' ? goalOf(region.task.content) : undefined;
  let carriedGoal: string | undefined;
  // Insertion-ordered sets; a file touched again moves to the end, so the cap keeps the newest.
  const constraints = new Set<string>();
  const files = new Set<string>();
  let previous: SummaryProgress = {};
  let lastStep: number | undefined;
  let highestStep: number | undefined;
  let toolCalls = 0;
  let finished = false;

  for (const message of region.messages) {
    if (message.role === 'user' && isSummaryMessage(message.content)) {
      const carried = readSummary(message.content);
      carriedGoal ??= carried.goal;
      for (const item of carried.constraints) constraints.add(item);
      for (const file of carried.files) files.add(file);
      previous = carried.progress;
    } else if (message.role === 'user') {
      const stated = trimmedLines(message.content).filter((line) => line.startsWith(CONSTRAINT_PREFIX));
      for (const line of stated) constraints.add(withoutDirective(line));
      // The task opens the conversation; a user message after an earlier summary is a later turn, not the goal.
      if (goal === undefined && carriedGoal === undefined) goal = goalOf(message.content);
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
    files: [...files].slice(-maxFiles),
    droppedFiles: Math.max(0, files.size - maxFiles),
    progress: {
      ...(last === undefined ? {} : { lastStep: last }),
      ...(highest.length === 0 ? {} : { highestStep: Math.max(...highest) }),
      toolCalls: (previous.toolCalls ?? 0) + toolCalls,
    },
    finished,
  };
}
