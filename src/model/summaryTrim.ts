/**
 * Cuts a summary that came back over its budget down to it, without a model
 * (DESIGN §5 "Land with room"). Models and proxies ignore `max_tokens`; a summary 60–80% of its input would land the
 * context right back at the trigger, so the next step would compact again. The cut keeps headings
 * and the lines a successor cannot rebuild — files, commands, errors, numbers, constraints — before
 * any narrative. Pure over its text; counts with the same tokenizer as the store.
 */
import { countTextTokens } from './textTokens';

/** A line this long is cut before counting: one line should not take a summary's whole budget. */
const LINE_CHARS = 400;

/** Why a line is worth keeping, in the order they are kept when not all fit. */
const TELLING = [
  /^#{1,6}\s/, // the summary's own structure, so the kept lines still read in sections
  /\b(?:must|never|always|only|do not|don['’]t|should not|shouldn['’]t|required?|forbidden|constraint)\b/i,
  /\b(?:error|errors|failed|failure|failing|fail|exception|traceback|panic|fatal|not ok|assert\w*|denied|cannot)\b/i,
  /(?:^|[\s`'"(])(?:\.{0,2}\/)?[\w.-]+\/[\w./-]+|\b[\w-]+\.(?:ts|js|py|go|rs|java|json|md|ya?ml|toml|sh|c|h|cpp|txt|sql)\b/, // paths
  /`[^`]+`|\$ |\b(?:npm|npx|git|node|python3?|pytest|go|cargo|make|bash|sh)\s/, // commands and code
  /\d/, // numbers: counts, versions, ids, measurements
] as const;

/** The marker that ends a cut summary, so a reader (and the next summary) knows lines were left out. */
export function trimmedMarker(fromTokens: number, toTokens: number): string {
  return `[agentd cut this summary from ${fromTokens} to at most ${toTokens} tokens: lines naming files, commands, errors, numbers and constraints were kept first]`;
}

/**
 * `text` when it fits `budgetTokens`; else its most telling lines, in their order, under the budget
 * with the marker. `total` is the text's token count, when the caller has it already.
 */
export function trimSummaryToBudget(text: string, budgetTokens: number, total = countTextTokens(text)): string {
  if (total <= budgetTokens) return text;
  const marker = trimmedMarker(total, budgetTokens);
  let room = budgetTokens - countTextTokens(marker) - 1;
  const lines = distinctLines(text);
  const kept = new Set<number>();
  for (const rule of [...TELLING, /\S/]) {
    for (const [index, line] of lines.entries()) {
      if (kept.has(index) || !rule.test(line.text)) continue;
      if (line.tokens + 1 > room) continue;
      kept.add(index);
      room -= line.tokens + 1;
    }
  }
  const body = lines.filter((_, index) => kept.has(index)).map((line) => line.text);
  return [...body, marker].join('\n');
}

interface Line {
  readonly text: string;
  readonly tokens: number;
}

/**
 * Non-blank lines, a line repeated word for word kept once. A line over LINE_CHARS — a summary
 * written as one paragraph, or as minified JSON — is taken apart at its sentence ends and JSON item
 * boundaries, so its telling parts can be kept without the rest; a part still too long is cut.
 */
function distinctLines(text: string): Line[] {
  const seen = new Set<string>();
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    for (const piece of piecesOf(raw.trimEnd())) {
      const line = piece.slice(0, LINE_CHARS);
      if (line.trim() === '' || seen.has(line)) continue;
      seen.add(line);
      lines.push({ text: line, tokens: countTextTokens(line) });
    }
  }
  return lines;
}

/** After a sentence's end, or after a JSON value's closing quote, bracket or brace and its comma. */
const PIECE_BOUNDARY = /(?<=[.!?])\s+(?=\S)|(?<=["\]}],)\s*/;

function piecesOf(line: string): string[] {
  return line.length <= LINE_CHARS ? [line] : line.split(PIECE_BOUNDARY);
}
