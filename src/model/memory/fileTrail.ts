/** The memory's file trail: files written or edited, and files read or folders listed. Pure. */
import type { ToolFacts } from './toolResults';

const LISTED_NAMES_KEPT = 60;
/** Tools that change a file named by a `path` argument (built-in `write_file`, and user or MCP edit tools). */
const WRITES = /write|edit|create|patch|append|replace|move|rename|delete/i;

/** A tool that changes a file: its output only confirms the write, which the file trail lists. */
export function isWriteTool(name: string): boolean {
  return WRITES.test(name);
}

/** Files written, newest first, each once with the seq and size of its last write. */
export function writtenFiles(tools: readonly ToolFacts[]): string[] {
  const files = new Map<string, { seq: number; size?: number; name: string }>();
  for (const { call, isError } of tools) {
    const path = call.args.path;
    if (typeof path !== 'string' || !WRITES.test(call.name) || isError) continue;
    const content = call.args.content;
    files.delete(path);
    files.set(path, { seq: call.seq, name: call.name, ...(typeof content === 'string' ? { size: Buffer.byteLength(content, 'utf8') } : {}) });
  }
  return [...files.entries()]
    .reverse()
    .map(([path, file]) => `- ${path} (${file.name} at seq ${file.seq}${file.size === undefined ? '' : `, ${file.size} bytes`})`);
}

/**
 * Files read, newest first, and each folder listed with every name its listings showed (newest
 * listing first: a file seen once and deleted since is still named, with the seq that saw it).
 */
export function readFiles(tools: readonly ToolFacts[]): string[] {
  // Entries in the order first met going back in time: a file read, or a folder and its names.
  const entries: Array<{ line: string } | { path: string; seq: number; names: string[] }> = [];
  const seen = new Set<string>();
  const listed = new Map<string, { path: string; seq: number; names: string[] }>();
  for (const { call, output, isError, resultSeq } of [...tools].reverse()) {
    const path = call.args.path;
    if (typeof path !== 'string' || WRITES.test(call.name)) continue;
    if (call.name === 'list_files' && !isError) {
      let folder = listed.get(path);
      if (!folder) {
        folder = { path, seq: resultSeq, names: [] };
        listed.set(path, folder);
        entries.push(folder);
      }
      for (const name of output.split('\n')) {
        if (name !== '' && !name.startsWith('[') && !folder.names.includes(name)) folder.names.push(name);
      }
    } else if (!seen.has(`${call.name} ${path}`)) {
      seen.add(`${call.name} ${path}`);
      entries.push({ line: `- ${call.name} ${path} (seq ${resultSeq})${isError ? ' failed' : ''}` });
    }
  }
  return entries.map((entry) => {
    if ('line' in entry) return entry.line;
    const more = entry.names.length > LISTED_NAMES_KEPT ? `, … ${entry.names.length - LISTED_NAMES_KEPT} more` : '';
    return `- listed ${entry.path} (newest seq ${entry.seq}): ${entry.names.slice(0, LISTED_NAMES_KEPT).join(', ')}${more}`;
  });
}
