/**
 * Token counting against text shapes that freeze a tokenizer: `countTextTokens` (pieces of at most
 * 512 characters) beside gpt-tokenizer's `countTokens` on the whole text, in the same process. Runs
 * without whitespace are where the whole-text count grows quadratically; real files show how close
 * the pieced count stays. Each measurement gets text nothing counted before, so the tokenizer's own
 * cache of pre-tokens cannot flatter either side.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens } from '../src/model/tokens';
import { int, num, ratio, say, table, type BenchBody } from './lib/result';

const ROOT = join(__dirname, '..', '..');
/** Whole-text counts stop here: past it one run costs tens of seconds (190,000 characters: ~40 s). */
const WHOLE_MAX_CHARS = 40_000;
const SIZES = [5_000, 20_000, 40_000, 190_000, 1_000_000];

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

/** Shapes of text without whitespace, each new on every call. */
const RUN_SHAPES: Record<string, (chars: number) => string> = {
  'one letter repeated': (chars) => fromAlphabet('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1) + 'A'.repeat(chars - 1),
  'random letters': (chars) => fromAlphabet('abcdefghijklmnopqrstuvwxyz', chars),
  'hex digest dump': (chars) => fromAlphabet('0123456789abcdef', chars),
};

interface SpeedRow {
  readonly shape: string;
  readonly chars: number;
  readonly piecesMs: number;
  readonly wholeMs: number | null;
  readonly piecesTokens: number;
  readonly wholeTokens: number | null;
}

function timed(count: () => number): { ms: number; tokens: number } {
  const started = performance.now();
  const tokens = count();
  return { ms: performance.now() - started, tokens };
}

function measureSpeed(): SpeedRow[] {
  const rows: SpeedRow[] = [];
  for (const [shape, make] of Object.entries(RUN_SHAPES)) {
    for (const chars of SIZES) {
      const pieces = timed(() => countTextTokens(make(chars)));
      const whole = chars <= WHOLE_MAX_CHARS ? timed(() => countTokens(make(chars))) : undefined;
      const row = { shape, chars, piecesMs: pieces.ms, wholeMs: whole?.ms ?? null, piecesTokens: pieces.tokens, wholeTokens: whole?.tokens ?? null };
      say(`  ${shape}, ${int(chars)} chars: pieces ${num(row.piecesMs, 1)} ms${whole ? `, whole ${num(whole.ms, 1)} ms` : ''}`);
      rows.push(row);
    }
  }
  return rows;
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

const pct = (value: number): string => `${num(value * 100, 3)}%`;

export function countingBench(): BenchBody {
  // The tokenizer builds its tables on first use, and the piece loop is compiled on its first long
  // text: that time belongs to neither side.
  countTokens(RUN_SHAPES['random letters']!(2_000));
  countTextTokens(RUN_SHAPES['random letters']!(2_000));
  say('speed on runs without whitespace:');
  const speed = measureSpeed();
  say('accuracy on real text:');
  const accuracy = measureAccuracy();
  return {
    figures: { pieceChars: 512, wholeMaxChars: WHOLE_MAX_CHARS, speed, accuracy },
    markdown: [
      '`countTextTokens` (`src/model/tokens.ts`: the text in pieces of at most 512 characters, cut at a space after a word',
      'where there is one) against gpt-tokenizer\'s `countTokens` on the whole text, in the same process. Each count gets text',
      `no count saw before. Whole-text counts stop at ${int(WHOLE_MAX_CHARS)} characters.`,
      '',
      '### Time on text without whitespace',
      '',
      ...table(
        ['shape', 'characters', 'in pieces', 'whole', 'whole ÷ pieces', 'tokens in pieces / whole'],
        speed.map((row) => [
          row.shape,
          int(row.chars),
          `${num(row.piecesMs, 1)} ms`,
          row.wholeMs === null ? 'not run' : `${num(row.wholeMs, 1)} ms`,
          row.wholeMs === null ? '' : `**${ratio(row.wholeMs, row.piecesMs)}**`,
          `${int(row.piecesTokens)} / ${row.wholeTokens === null ? '–' : int(row.wholeTokens)}`,
        ]),
      ),
      '',
      '### How close on real text',
      '',
      ...table(
        ['text', 'files', 'characters', 'tokens whole', 'tokens in pieces', 'difference', 'worst file'],
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
    ],
  };
}
