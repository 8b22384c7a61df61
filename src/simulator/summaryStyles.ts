/**
 * How the scripted summarizer writes what it knows, one writer per summarizer behaviour, and the one
 * reader that gets the facts back out of any of them (a real model reads its own earlier summary
 * whatever shape it took; so must the simulator, to merge it and to know where the work stands).
 */
import { SUMMARY_SECTIONS } from '../model/summaryFormat';
import { hashInt } from './hash';
import { readJsonSummary } from './summaryJson';
import { bulletItems, progressLines, progressSentence, summaryProgress, summarySections, type SummaryProgress } from './summaryParts';

/** What a summary says, gathered from the messages and any earlier summary among them. */
export interface SummaryFacts {
  readonly goal: string;
  readonly constraints: readonly string[];
  /** The newest files, oldest first. */
  readonly files: readonly string[];
  /** Files left out by the cap. */
  readonly droppedFiles: number;
  readonly progress: SummaryProgress;
  readonly finished: boolean;
}

/** What could be read back from an earlier summary; a lossy one leaves most of it out. */
export interface CarriedFacts {
  readonly goal?: string;
  readonly constraints: readonly string[];
  readonly files: readonly string[];
  readonly progress: SummaryProgress;
}

/** Written when nothing was stated; never carried into the next summary, so it cannot pile up next to real ones. */
const NO_CONSTRAINTS = 'None stated beyond the task itself.';

type Section = (typeof SUMMARY_SECTIONS)[number];

function nextStep(facts: SummaryFacts): number | undefined {
  return facts.progress.lastStep === undefined ? undefined : facts.progress.lastStep + 1;
}

function sectionLines(section: Section, facts: SummaryFacts): string[] {
  const next = nextStep(facts);
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

/** As asked: one `## Section` per SUMMARY_SECTIONS entry, in order. */
export function sectionedSummary(facts: SummaryFacts): string {
  return SUMMARY_SECTIONS.map((section) => [`## ${section}`, ...sectionLines(section, facts)].join('\n')).join('\n\n');
}

/** The model's own structure: a title, `###` headings of its choosing, `*` bullets, files in backticks. */
const OWN_HEADINGS = {
  title: '# Where this session stands',
  goal: 'Objective',
  rules: 'Ground rules from the user',
  work: 'Work so far',
  files: 'Files in play',
  next: 'Up next',
} as const;

export function ownHeadingsSummary(facts: SummaryFacts): string {
  const next = nextStep(facts);
  const files = facts.files.map((file) => `* \`${file}\``);
  return [
    OWN_HEADINGS.title,
    `### ${OWN_HEADINGS.goal}\n${facts.goal}`,
    `### ${OWN_HEADINGS.rules}\n${facts.constraints.length === 0 ? '* (none given)' : facts.constraints.map((line) => `* ${line}`).join('\n')}`,
    `### ${OWN_HEADINGS.work}\n* ${progressSentence(facts.progress)}\n* Notes live under notes/ and get re-read before each decision.`,
    `### ${OWN_HEADINGS.files}\n${[...(files.length === 0 ? ['* (none yet)'] : files), ...(facts.droppedFiles > 0 ? [`and ${facts.droppedFiles} older ones`] : [])].join('\n')}`,
    `### ${OWN_HEADINGS.next}\n* ${facts.finished ? 'Nothing: the task was reported finished.' : next === undefined ? 'Pick up from the latest messages.' : `Step ${next}, after re-reading the newest notes.`}`,
  ].join('\n\n');
}

const PROSE = {
  goal: 'I am working on this task: ',
  rules: 'The user set these rules, quoted as given: ',
  noRules: 'The user set no rules beyond the task.',
  files: 'The files I have touched are ',
} as const;

/** Free prose: paragraphs without a single heading or bullet, the facts inside sentences. */
export function proseSummary(facts: SummaryFacts): string {
  const next = nextStep(facts);
  const rules =
    facts.constraints.length === 0 ? PROSE.noRules : `${PROSE.rules}${facts.constraints.map((line) => `"${line}"`).join('; ')}.`;
  const files =
    facts.files.length === 0
      ? 'I have not touched any file yet.'
      : `${PROSE.files}${facts.files.map((file) => `\`${file}\``).join(', ')}${facts.droppedFiles > 0 ? ` (and ${facts.droppedFiles} older ones not named here)` : ''}.`;
  const ahead = facts.finished
    ? 'The task was reported finished; only follow-up messages remain.'
    : next === undefined
      ? 'Next I will carry on from where the latest messages leave off.'
      : `Next I will carry on with step ${next}, re-reading the newest notes file first.`;
  return [
    `${PROSE.goal}${facts.goal}\n${rules}`,
    `${progressSentence(facts.progress)} Along the way I kept notes under notes/ and re-ran the checks after each change, treating the passing output as the baseline.\n${files}`,
    ahead,
  ].join('\n\n');
}

/**
 * A summary that forgets about half of what it was shown: the asked-for sections, with each
 * constraint and file kept or dropped by a hash of its text. The same fact meets the same fate in
 * every summary, as a model that finds a fact unimportant tends to find it so again.
 */
export function halfFactsSummary(facts: SummaryFacts): string {
  const kept = (fact: string): boolean => hashInt('halfFacts', fact) % 2 === 0;
  return sectionedSummary({ ...facts, constraints: facts.constraints.filter(kept), files: facts.files.filter(kept) });
}

/** Lossy: one paragraph that keeps the gist and where the work stands, and drops rules and files. */
export function lossySummary(facts: SummaryFacts): string {
  return `Working on: ${facts.goal} ${progressSentence(facts.progress)} Things are going fine so far.`;
}

/** Reads an earlier summary written by any of the writers above or `jsonSummary` (or by hand in their shape). */
export function readSummary(text: string): CarriedFacts {
  const sections = summarySections(text);
  const progress = summaryProgress(text);
  if (sections.has('Goal')) {
    const constraints = (sections.get('Constraints') ?? [])
      .map((line) => (line.startsWith('- ') ? line.slice(2).trim() : line))
      .filter((line) => line !== NO_CONSTRAINTS);
    return { goal: sections.get('Goal')?.join(' '), constraints, files: bulletItems(sections.get('Files touched')), progress };
  }
  if (sections.has(OWN_HEADINGS.goal)) {
    const stars = (lines: readonly string[] | undefined) =>
      (lines ?? []).filter((line) => line.startsWith('* ') && !/^\* \(none/.test(line)).map((line) => line.slice(2).trim());
    return {
      goal: sections.get(OWN_HEADINGS.goal)?.join(' '),
      constraints: stars(sections.get(OWN_HEADINGS.rules)),
      files: stars(sections.get(OWN_HEADINGS.files)).map(unquoteCode),
      progress,
    };
  }
  const json = readJsonSummary(text);
  if (json !== undefined) return json;
  const lines = text.split('\n').map((line) => line.trim());
  const goalLine = lines.find((line) => line.startsWith(PROSE.goal));
  const rulesLine = lines.find((line) => line.startsWith(PROSE.rules));
  const filesLine = lines.find((line) => line.startsWith(PROSE.files));
  const lossyGoal = /^Working on: (.*?) (?:Stopped after step|No step)/.exec(lines.find((line) => line.startsWith('Working on: ')) ?? '');
  return {
    goal: goalLine?.slice(PROSE.goal.length) ?? lossyGoal?.[1],
    constraints: rulesLine === undefined ? [] : quotedRules(rulesLine.slice(PROSE.rules.length)),
    files: filesLine === undefined ? [] : [...filesLine.matchAll(/`([^`]+)`/g)].map((found) => found[1] ?? ''),
    progress,
  };
}

function unquoteCode(item: string): string {
  return /^`[^`]+`$/.test(item) ? item.slice(1, -1) : item;
}

/** `"a"; "b".` → [a, b] */
function quotedRules(list: string): string[] {
  const body = list.replace(/\.$/, '');
  if (!body.startsWith('"') || !body.endsWith('"')) return [];
  return body.slice(1, -1).split('"; "');
}
