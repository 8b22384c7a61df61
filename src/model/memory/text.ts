/** Small text helpers the session memory's sections share: one-line clips, shapes, line costs. Pure. */
import { countTextTokens } from '../textTokens';
import { capText } from '../capText';

/** Characters a memory line keeps: a line is a pointer and a fact, not the whole message. */
export const LINE_CHARS = 200;

/** What one line of the memory costs against its budget: its tokens and the newline that joins it. */
export function lineTokens(line: string): number {
  return countTextTokens(line) + 1;
}

/** `text` on one line, at most `chars` characters (an ellipsis marks a cut). */
export function clip(text: string, chars = LINE_CHARS): string {
  return capText(text.replace(/\s*\n\s*/g, ' '), chars);
}

/** The first `count` words of `text`, on one line. */
export function firstWords(text: string, count: number): string {
  const words = text.split(/\s+/).filter((word) => word !== '');
  return clip(words.slice(0, count).join(' ')) + (words.length > count ? ' …' : '');
}

/** Text with every run of digits as `#`: runs of one command that differ only in numbers look alike. */
export function shapeOf(text: string): string {
  return text.replace(/\d+/g, '#');
}

/** What two lines that say the same thing have in common: case, spacing and trailing punctuation ignored. */
export function sameness(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').replace(/[\s.,;:!…]+$/, '').trim();
}
