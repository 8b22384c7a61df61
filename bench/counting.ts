/**
 * Token counting against text shapes that freeze a tokenizer: `countTextTokens` beside
 * gpt-tokenizer's `countTokens` on the whole text, in the same process. Runs without whitespace are
 * where the whole-text count grows quadratically; real code and real files show how close ours stays.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens } from '../src/model/textTokens';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';

const ROOT = join(__dirname, '..', '..');
/** Whole-text counts stop here: past it one run costs tens of seconds (190,000 characters: ~40 s). */
const WHOLE_MAX_CHARS = 40_000;
const SIZES = [5_000, 20_000, 40_000, 190_000, 1_000_000, 2_000_000];
const MB = 1_000_000;

let seed = 7;
function nextRandom(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}

function fromAlphabet(alphabet: string, chars: number): string {
  let text = '';
  while (text.length < chars) text += alphabet.charAt(Math.floor(nextRandom() * alphabet.length));
  return text;
}

/**
 * A maker of real text from `read()` (read once): each call takes the text after the last one's,
 * going round again (and repeating the source) where it runs out, so no count sees text an earlier
 * one just saw.
 */
function realText(read: () => string): (chars: number) => string {
  let source: string | undefined;
  let offset = 0;
  return (chars) => {
    source ??= read();
    while (source.length < 2 * chars) source += source;
    if (offset + chars > source.length) offset = 0;
    const text = source.slice(offset, offset + chars);
    offset += chars;
    return text;
  };
}

const REAL_CODE = 'real code and comments (typescript.js)';
const PROSE = 'ordinary prose (README and docs/design.md)';
/** Shapes with whitespace, which the tokenizer can count whole at every size. */
const REAL_SHAPES = new Set([REAL_CODE, PROSE]);

/** Shapes of text, each new on every call: three without whitespace, two real. */
const SHAPES: Record<string, (chars: number) => string> = {
  'one letter repeated': (chars) => fromAlphabet('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1) + 'A'.repeat(chars - 1),
  'random letters': (chars) => fromAlphabet('abcdefghijklmnopqrstuvwxyz', chars),
  'hex digest dump': (chars) => fromAlphabet('0123456789abcdef', chars),
  // Code and comments of TypeScript's compiler (8.7 MB).
  [REAL_CODE]: realText(() => readFileSync(join(ROOT, 'node_modules', 'typescript', 'lib', 'typescript.js'), 'utf8')),
  [PROSE]: realText(() => ['README.md', join('docs', 'design.md')].map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n')),
};

/** The tokenizer's own count of every 512-character piece: the reference where the whole text is too slow to count. */
function countEveryPiece(text: string): number {
  let total = 0;
  for (let at = 0; at < text.length; at += 512) total += countTokens(text.slice(at, at + 512));
  return total;
}

interface SpeedRow {
  readonly shape: string;
  readonly chars: number;
  readonly piecesMs: number;
  readonly wholeMs: number | null;
  readonly piecesTokens: number;
  /** The tokenizer's count: of the whole text up to WHOLE_MAX_CHARS, of every 512-character piece past it. */
  readonly referenceTokens: number;
  readonly reference: 'whole' | 'every piece';
}

function timed(count: () => number): { ms: number; tokens: number } {
  const started = performance.now();
  const tokens = count();
  return { ms: performance.now() - started, tokens };
}

function measureSpeed(): SpeedRow[] {
  const rows: SpeedRow[] = [];
  for (const [shape, make] of Object.entries(SHAPES)) {
    for (const chars of SIZES) {
      const text = make(chars);
      // Pieces first: a whole count after them shares no pre-token with them on text without
      // whitespace, and on real code the tokenizer's cache can only flatter the whole count.
      const pieces = timed(() => countTextTokens(text));
      // Milliseconds on a shared machine, where a collection or another process adds a spike to one
      // count: the fastest of five texts of the shape is the figure.
      const others = [1, 2, 3, 4].map(() => make(chars));
      const piecesMs = Math.min(pieces.ms, ...others.map((other) => timed(() => countTextTokens(other)).ms));
      const whole = chars <= WHOLE_MAX_CHARS || REAL_SHAPES.has(shape) ? timed(() => countTokens(text)) : undefined;
      const row: SpeedRow = {
        shape,
        chars,
        piecesMs,
        wholeMs: whole?.ms ?? null,
        piecesTokens: pieces.tokens,
        referenceTokens: whole?.tokens ?? countEveryPiece(text),
        reference: whole === undefined ? 'every piece' : 'whole',
      };
      say(`  ${shape}, ${int(chars)} chars: ours ${num(row.piecesMs, 1)} ms (best of 5)${whole ? `, whole ${num(whole.ms, 1)} ms` : ''}`);
      rows.push(row);
    }
  }
  return rows;
}

/** Time for 2 MB against 1 MB, per shape: 2.0 is linear. */
function doubling(rows: readonly SpeedRow[]): { shape: string; ratio: number }[] {
  return Object.keys(SHAPES).map((shape) => {
    const ms = (chars: number) => rows.find((row) => row.shape === shape && row.chars === chars)?.piecesMs ?? Number.NaN;
    return { shape, ratio: ms(2 * MB) / ms(MB) };
  });
}

/** Real text of this repository and its dependencies: prose, code, JSON, minified bundles. */
const REAL_SOURCES: Record<string, { readonly dir: string; readonly pattern: RegExp }> = {
  'Markdown (README, docs)': { dir: '.', pattern: /^(README\.md|docs\/.*\.md)$/ },
  'TypeScript (src)': { dir: 'src', pattern: /\.ts$/ },
  'JSON (package-lock, bench results)': { dir: '.', pattern: /^(package-lock\.json|bench\/results\/.*\.json)$/ },
  'minified JavaScript (node_modules)': { dir: 'node_modules', pattern: /\.min\.js$/ },
};

function filesUnder(dir: string, pattern: RegExp, limit = 200): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      if (found.length >= limit) return;
      const path = join(at, name);
      const rel = relative(ROOT, path);
      if (name === '.git' || (rel.startsWith('node_modules') && dir !== 'node_modules') || name === 'dist') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (pattern.test(rel)) found.push(path);
    }
  };
  walk(join(ROOT, dir));
  return found;
}

interface AccuracyRow {
  readonly source: string;
  readonly files: number;
  readonly chars: number;
  readonly wholeTokens: number;
  readonly piecesTokens: number;
  /** Largest |pieces − whole| ÷ whole of one file. */
  readonly worstFileDeviation: number;
}

function measureAccuracy(): AccuracyRow[] {
  return Object.entries(REAL_SOURCES).map(([source, { dir, pattern }]) => {
    let chars = 0;
    let wholeTokens = 0;
    let piecesTokens = 0;
    let worstFileDeviation = 0;
    const files = filesUnder(dir, pattern);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // A file with a run past the whole-text limit would take the benchmark minutes to count whole.
      if (/\S{40000}/.test(text)) continue;
      const whole = countTokens(text);
      const pieces = countTextTokens(text);
      chars += text.length;
      wholeTokens += whole;
      piecesTokens += pieces;
      if (whole > 0) worstFileDeviation = Math.max(worstFileDeviation, Math.abs(pieces - whole) / whole);
    }
    say(`  ${source}: ${files.length} files, ${int(wholeTokens)} tokens whole, ${int(piecesTokens)} in pieces`);
    return { source, files: files.length, chars, wholeTokens, piecesTokens, worstFileDeviation };
  });
}

interface SampledRow {
  readonly source: string;
  readonly chars: number;
  readonly wholeTokens: number;
  readonly sampledTokens: number;
  readonly sampledMs: number;
}

/**
 * Each source's files joined into one text, as a long output or reply would hold them: past 256 KB
 * `countTextTokens` estimates it from samples; the reference is the sum of each file counted whole.
 */
function measureSampled(): SampledRow[] {
  const rows: SampledRow[] = [];
  for (const [source, { dir, pattern }] of Object.entries(REAL_SOURCES)) {
    const texts = filesUnder(dir, pattern).map((file) => readFileSync(file, 'utf8')).filter((text) => !/\S{40000}/.test(text));
    const joined = texts.join('');
    if (joined.length <= 256 * 1024) continue;
    const started = performance.now();
    const sampledTokens = countTextTokens(joined);
    const sampledMs = performance.now() - started;
    const wholeTokens = texts.reduce((sum, text) => sum + countTokens(text), 0);
    say(`  ${source}, joined: ${int(joined.length)} chars, ${int(wholeTokens)} tokens whole, ${int(sampledTokens)} from samples in ${num(sampledMs, 1)} ms`);
    rows.push({ source, chars: joined.length, wholeTokens, sampledTokens, sampledMs });
  }
  return rows;
}

const pct = (value: number): string => `${num(value * 100, 3)}%`;

export function countingBench(): BenchBody {
  // The tokenizer builds its tables on first use, and the piece loop is compiled on its first long
  // text: that time belongs to neither side.
  const warmUp = fromAlphabet('abcdefghijklmnopqrstuvwxyz', 2_000);
  countTokens(warmUp);
  countTextTokens(warmUp);
  say('speed:');
  const speed = measureSpeed();
  const doubled = doubling(speed);
  for (const { shape, ratio: r } of doubled) say(`  ${shape}: 2 MB took ${num(r, 2)}× as long as 1 MB`);
  say('accuracy on real files:');
  const accuracy = measureAccuracy();
  say('accuracy on long texts, estimated from samples:');
  const sampled = measureSampled();
  return {
    figures: { pieceChars: 512, sampledStretchChars: 16 * 512, sampledTextChars: 256 * 1024, wholeMaxChars: WHOLE_MAX_CHARS, speed, doubled, accuracy, sampled },
    markdown: [
      '`countTextTokens` (`src/model/textTokens.ts`: pieces of at most 512 characters cut at a word boundary where there is one;',
      'a stretch of over 8,192 characters without a space or line break estimated from its head, middle and tail; a text of',
      'over 256 KB estimated from 128 samples of about 1,024 characters spread evenly over it) against',
      "gpt-tokenizer's `countTokens` on the whole text, in the same process, on text no count saw before. On text without",
      `whitespace the whole count stops at ${int(WHOLE_MAX_CHARS)} characters (past it a run costs it tens of seconds); beyond that the`,
      "reference is the tokenizer's count of every 512-character piece.",
      '',
      '### Time and count by shape',
      '',
      ...table(
        ['shape', 'characters', '`countTextTokens` (best of 5 texts)', 'whole', 'whole ÷ pieces', 'tokens: ours / reference', 'difference'],
        speed.map((row) => [
          row.shape,
          int(row.chars),
          `${num(row.piecesMs, 1)} ms`,
          row.wholeMs === null ? 'not run' : `${num(row.wholeMs, 1)} ms`,
          row.wholeMs === null ? '' : `**${ratio(row.wholeMs, row.piecesMs)}**`,
          `${int(row.piecesTokens)} / ${int(row.referenceTokens)} (${row.reference})`,
          pct(row.referenceTokens === 0 ? 0 : (row.piecesTokens - row.referenceTokens) / row.referenceTokens),
        ]),
      ),
      '',
      ...table(
        ['shape', '2 MB ÷ 1 MB, time (2.0 is linear)'],
        doubled.map((row) => [row.shape, `**${num(row.ratio, 2)}×**`]),
      ),
      '',
      '### How close on real files',
      '',
      ...table(
        ['text', 'files', 'characters', 'tokens whole', 'tokens by `countTextTokens`', 'difference', 'worst file'],
        accuracy.map((row) => [
          row.source,
          int(row.files),
          int(row.chars),
          int(row.wholeTokens),
          int(row.piecesTokens),
          pct(row.wholeTokens === 0 ? 0 : (row.piecesTokens - row.wholeTokens) / row.wholeTokens),
          pct(row.worstFileDeviation),
        ]),
      ),
      '',
      '### How close on long texts, estimated from samples',
      '',
      ...table(
        ['text (its files joined)', 'characters', 'tokens, each file whole', 'tokens from samples', 'difference', 'time'],
        sampled.map((row) => [
          row.source,
          int(row.chars),
          int(row.wholeTokens),
          int(row.sampledTokens),
          pct(row.wholeTokens === 0 ? 0 : (row.sampledTokens - row.wholeTokens) / row.wholeTokens),
          `${num(row.sampledMs, 1)} ms`,
        ]),
      ),
    ],
  };
}
