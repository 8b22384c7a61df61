/**
 * A bounded tail of a child process's output. Error messages quote the last lines a process wrote
 * (why a build or a server died) without letting a chatty process grow memory without limit.
 */
import * as fs from 'node:fs';

/** Keeps the last `maxChars` characters written to it. */
export class OutputTail {
  private text = '';

  constructor(private readonly maxChars = 8000) {}

  push(chunk: string | Buffer): void {
    this.text += chunk.toString();
    // Trim only when well over the cap so steady output does not copy the buffer on every chunk.
    if (this.text.length > this.maxChars * 2) this.text = this.text.slice(-this.maxChars);
  }

  /** The last `maxLines` non-empty lines, at most `maxChars` characters. */
  lines(maxLines = 30): string {
    return lastLines(this.text.slice(-this.maxChars), maxLines);
  }
}

/** The last `maxLines` non-empty lines of `text`. */
function lastLines(text: string, maxLines: number): string {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return lines.slice(-maxLines).join('\n');
}

/** The last lines of a log file, or '' when it cannot be read; used when output went to a file. */
export function fileTail(file: string, maxLines = 30, maxBytes = 16_000): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    return lastLines(buffer.toString('utf8'), maxLines);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** `text` indented under a heading, or '' when there is nothing to show. */
export function indentedBlock(heading: string, text: string): string {
  if (text.trim() === '') return '';
  return `\n${heading}\n${text.replace(/^/gm, '  ')}`;
}
