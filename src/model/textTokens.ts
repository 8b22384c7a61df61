/**
 * Counting the tokens of one text in time linear in its length, whatever its shape (DESIGN §4):
 * gpt-tokenizer (o200k_base) on bounded pieces, with long stretches without whitespace estimated
 * from samples. Runs in activities and the simulator only.
 */
import { countTokens } from 'gpt-tokenizer';

/**
 * Longest piece of text handed to the tokenizer at once. Its merge step is quadratic in the length
 * of one pre-token, and a run without whitespace (minified code, a hash dump, a model that repeats
 * one letter) is a single pre-token: counted whole, 40,000 such characters hold the worker's main
 * thread for over a second. In pieces the cost is linear in the text.
 */
const PIECE_CHARS = 512;
/**
 * A stretch without a space or line break longer than this is estimated from samples rather than
 * counted piece by piece: the tokenizer spends up to ~2 µs per character on text of one letter
 * class, so a megabyte of it would still hold the thread for seconds.
 */
const SAMPLED_STRETCH_CHARS = 16 * PIECE_CHARS;
/**
 * A text longer than this is estimated from SAMPLES evenly spread samples: the tokenizer takes about
 * 2 µs a character on text of little repetition (a base64 dump), 10 s for 5 MB, while a text this
 * long enters any context as a view, whose own count is exact.
 */
const SAMPLED_TEXT_CHARS = 256 * 1024;
const SAMPLES = 128;
const SAMPLE_CHARS = 2 * PIECE_CHARS;

/**
 * Tokens of `text`, counted in pieces of at most PIECE_CHARS characters. A piece ends at the last
 * word boundary in its second half, where the tokenizer starts a new pre-token anyway, so text with
 * spaces or lines counts as it does whole. A stretch without either is cut every PIECE_CHARS, which
 * may count a token more per cut; past SAMPLED_STRETCH_CHARS it is estimated from samples, and so is
 * a whole text past SAMPLED_TEXT_CHARS (`npm run bench -- --only=counting` measures each against
 * the tokenizer's own count).
 */
export function countTextTokens(text: string): number {
  if (text.length <= PIECE_CHARS) return countTokens(text);
  if (text.length > SAMPLED_TEXT_CHARS) return estimateFromSamples(text);
  return countInPieces(text);
}

/**
 * Tokens of a very long text at the tokens per character of SAMPLES samples, one at the start of
 * each of as many equal parts, each starting and ending at a word boundary where there is one near.
 */
function estimateFromSamples(text: string): number {
  const part = text.length / SAMPLES;
  let sampledTokens = 0;
  let sampledChars = 0;
  for (let index = 0; index < SAMPLES; index += 1) {
    const from = Math.floor(index * part);
    const start = index === 0 ? 0 : nextBoundary(text, from, from + PIECE_CHARS);
    const sample = wholeCharacters(text, start, nextBoundary(text, start + SAMPLE_CHARS, start + SAMPLE_CHARS + PIECE_CHARS));
    sampledTokens += countInPieces(sample);
    sampledChars += sample.length;
  }
  return Math.ceil((sampledTokens / Math.max(1, sampledChars)) * text.length);
}

/** The first word boundary in [from, limit), or `from` when there is none. */
function nextBoundary(text: string, from: number, limit: number): number {
  for (let at = from; at < limit; at += 1) if (isWordBoundary(text, at)) return at;
  return from;
}

function countInPieces(text: string): number {
  if (text.length <= PIECE_CHARS) return countTokens(text);
  let total = 0;
  const breaks = /[ \n]/g;
  for (let start = 0; start < text.length; ) {
    breaks.lastIndex = start + 1;
    const stretchEnd = breaks.exec(text)?.index ?? text.length;
    if (stretchEnd - start > SAMPLED_STRETCH_CHARS) {
      total += estimateStretch(text, start, stretchEnd);
      start = stretchEnd;
      continue;
    }
    const end = pieceEnd(text, start);
    total += countTokens(text.slice(start, end));
    start = end;
  }
  return total;
}

const WHITESPACE = /\s/;

function pieceEnd(text: string, start: number): number {
  const limit = start + PIECE_CHARS;
  if (limit >= text.length) return text.length;
  for (let at = limit; at > start + PIECE_CHARS / 2; at -= 1) if (isWordBoundary(text, at)) return at;
  return isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

/**
 * Where the tokenizer starts a new pre-token whatever comes before: at a space after a word (the
 * space goes with the next word), or after a line break before a word (a break after punctuation
 * goes with the punctuation, so the cut is never before it).
 */
function isWordBoundary(text: string, at: number): boolean {
  const before = text.charAt(at - 1);
  const after = text.charAt(at);
  return (after === ' ' && !WHITESPACE.test(before)) || (before === '\n' && !WHITESPACE.test(after));
}

/**
 * Tokens of text[from, to): its first and last pieces counted, the rest at the highest tokens per
 * character of three pieces from its middle (a quarter, half and three quarters in), so the odd
 * start or end of a stretch is not taken as its rate, and a stretch whose content changes is
 * over- rather than under-estimated.
 */
function estimateStretch(text: string, from: number, to: number): number {
  const head = countTokens(wholeCharacters(text, from, from + PIECE_CHARS));
  const tail = countTokens(wholeCharacters(text, to - PIECE_CHARS, to));
  let rate = 0;
  for (const share of [0.25, 0.5, 0.75]) {
    const at = Math.floor(from + share * (to - from - PIECE_CHARS));
    const sample = wholeCharacters(text, at, at + PIECE_CHARS);
    rate = Math.max(rate, countTokens(sample) / Math.max(1, sample.length));
  }
  return head + tail + Math.ceil(rate * (to - from - 2 * PIECE_CHARS));
}

/** text[from, to) without half of a surrogate pair at either end, which the tokenizer cannot read. */
function wholeCharacters(text: string, from: number, to: number): string {
  const start = isLowSurrogate(text.charCodeAt(from)) ? from + 1 : from;
  const end = isHighSurrogate(text.charCodeAt(to - 1)) ? to - 1 : to;
  return text.slice(start, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
