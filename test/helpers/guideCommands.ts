/**
 * The shell commands the README and the guide pages show, read from their fenced blocks, for
 * test/guide.test.ts. A block is runnable unless the line before it is a marker
 * `<!-- needs: <what> — <why> -->`; a block whose info string names `file=NAME` is a file the
 * commands after it use (a tools module, an MCP config), written out before they run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../harness/repo';

export interface GuideBlock {
  /** Repository-relative path of the page. */
  readonly page: string;
  readonly line: number;
  /** What the marker says the block needs (a cluster, an API key…), or undefined when the test runs it. */
  readonly needs: string | undefined;
  readonly commands: readonly string[];
}

export interface GuideFile {
  readonly page: string;
  readonly name: string;
  readonly text: string;
}

export interface GuidePage {
  readonly page: string;
  readonly lines: number;
  readonly blocks: readonly GuideBlock[];
  readonly files: readonly GuideFile[];
}

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console']);
const MARKER = /^<!--\s*needs:\s*(.*?)\s*-->$/;

/** README.md first (it starts the services the pages assume), then docs/guide/*.md in name order. */
export function guidePagePaths(): string[] {
  const guide = readdirSync(join(repoRoot(), 'docs', 'guide'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join('docs', 'guide', name));
  return ['README.md', ...guide];
}

export function readGuidePage(page: string): GuidePage {
  const text = readFileSync(join(repoRoot(), page), 'utf8');
  const lines = text.split('\n');
  const blocks: GuideBlock[] = [];
  const files: GuideFile[] = [];
  for (let at = 0; at < lines.length; at += 1) {
    const fence = /^```(\S*)(.*)$/.exec(lines[at] ?? '');
    if (!fence) continue;
    const start = at;
    const body: string[] = [];
    for (at += 1; at < lines.length && !(lines[at] ?? '').startsWith('```'); at += 1) body.push(lines[at] ?? '');
    const language = fence[1] ?? '';
    const fileName = /\bfile=(\S+)/.exec(fence[2] ?? '')?.[1];
    if (fileName) files.push({ page, name: fileName, text: `${body.join('\n')}\n` });
    if (!SHELL_LANGUAGES.has(language)) continue;
    const needs = MARKER.exec((lines[start - 1] ?? '').trim())?.[1];
    blocks.push({ page, line: start + 1, needs, commands: shellCommands(body) });
  }
  return { page, lines: text.endsWith('\n') ? lines.length - 1 : lines.length, blocks, files };
}

/** One command per logical line: continuations joined, comments and blank lines dropped. */
export function shellCommands(body: readonly string[]): string[] {
  const joined = body.join('\n').replace(/\\\n\s*/g, '');
  return joined
    .split('\n')
    .map(withoutComment)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Drops a `#` comment that is outside quotes and starts a word. */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '#' && (index === 0 || /\s/.test(line[index - 1] ?? ''))) {
      return line.slice(0, index);
    }
  }
  return line;
}

/** The program a command runs, after any `NAME=value` assignments; `npx agentd` counts as `agentd`. */
export function programOf(command: string): string {
  const words = command.replace(/^(\s*[A-Za-z_][A-Za-z0-9_]*=('[^']*'|"[^"]*"|\S*)\s+)*/, '').split(/\s+/);
  return words[0] === 'npx' ? (words[1] ?? '') : (words[0] ?? '');
}
