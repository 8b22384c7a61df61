/**
 * Fits the memory's trail sections into what is left of its budget: each may first take an equal
 * share, and a section cut short keeps its newest lines and its oldest one. Pure.
 */
import { lineTokens } from './text';

/** A titled list of lines, newest first; a line may span several text lines (a result and its telling lines). */
export interface MemorySection {
  readonly title: string;
  readonly lines: readonly string[];
}

function moreLine(omitted: number): string {
  return `- … ${omitted} more between (search_transcript finds them), and the oldest:`;
}
/** What a "… N more" line costs at most. */
const MORE_LINE_TOKENS = lineTokens(moreLine(99_999));

/**
 * The sections within `budget`: each may first take an equal share, so a long one (a file written
 * at every step) cannot starve the others, and what a section does not need goes to the ones after
 * it that do. A section cut short keeps its newest lines and its oldest one, as a view keeps a head
 * and a tail: the first file written or command run often matters as much as the last.
 */
export function fitSections(sections: readonly MemorySection[], budget: number): string[][] {
  const present = sections.filter((section) => section.lines.length > 0);
  const costs = present.map((section) => section.lines.map(lineTokens));
  const needs = costs.map((lineCosts) => lineCosts.reduce((total, cost) => total + cost, 0));
  const titles = present.reduce((total, section) => total + lineTokens(section.title), 0);
  const share = Math.floor(Math.max(0, budget - titles) / Math.max(1, present.length));
  const limits = needs.map((need) => Math.min(need, share));
  let spare = limits.reduce((left, limit) => left - limit, Math.max(0, budget - titles));
  for (const [index, need] of needs.entries()) {
    const extra = Math.min(spare, need - limits[index]!);
    limits[index]! += extra;
    spare -= extra;
  }
  return present.map((section, index) => fitSection(section, costs[index]!, needs[index]!, limits[index]!)).filter((lines) => lines.length > 0);
}

/**
 * The section within `limit` tokens: whole (its lines cost `need`), or its newest lines, a
 * "… N more" line and its oldest line.
 */
function fitSection(section: MemorySection, costs: readonly number[], need: number, limit: number): string[] {
  const { title, lines } = section;
  if (need <= limit) return [title, ...lines];
  let room = limit - costs[costs.length - 1]! - MORE_LINE_TOKENS;
  if (room < 0) return [];
  const newest: string[] = [];
  for (let index = 0; index < lines.length - 1 && costs[index]! <= room; index++) {
    newest.push(lines[index]!);
    room -= costs[index]!;
  }
  const omitted = lines.length - 1 - newest.length;
  return [title, ...newest, moreLine(omitted), lines[lines.length - 1]!];
}

/** What fitted sections cost against a budget, as fitSections counts it. */
export function sectionsTokens(sections: readonly (readonly string[])[]): number {
  return sections.flat().reduce((total, line) => total + lineTokens(line), 0);
}
