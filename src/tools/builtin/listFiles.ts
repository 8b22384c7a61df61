/** The list_files tool: the entries of a workspace folder, optionally recursive, sorted and capped. */
import { lstat, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { withinDeadline } from '../deadline';
import { asToolInputError } from '../fsErrors';
import { notRegular } from '../regularFile';
import { type Tool, ToolInputError } from '../tool';
import { resolveInWorkspace } from '../workspace';

/** A recursive listing of a big tree would flood the context; past this the model should narrow the path. */
export const LIST_ENTRY_CAP = 500;
/** Folders a recursive listing shows but does not descend into: huge, and rarely what the model is after. */
const NOT_EXPANDED = new Set(['.git', 'node_modules']);
/** Pipes, sockets and devices are shown with this mark: the file tools refuse them, and the model should know why. */
const SPECIAL_SUFFIX = ' (not a regular file)';

const ListFilesInput = z.object({
  path: z.string().default('.').describe('Folder to list, relative to the workspace. Default: the workspace itself.'),
  recursive: z.boolean().default(false).describe('List the whole tree below the folder, not just its entries.'),
});

export const listFilesTool: Tool<typeof ListFilesInput> = {
  name: 'list_files',
  description:
    `List a folder in the workspace, sorted. Folders end with "/", symlinks with "@", pipes and other special files ` +
    `with "${SPECIAL_SUFFIX}". At most ${LIST_ENTRY_CAP} ` +
    'entries are shown; a recursive listing does not descend into .git or node_modules.',
  input: ListFilesInput,
  effect: 'read',
  quick: true,
  run(args, ctx) {
    return withinDeadline(ctx, `list_files ${JSON.stringify(args.path)}`, async () => {
      const dir = await resolveInWorkspace(ctx.workspace, args.path);
      try {
        // lstat, not stat: the path is resolved already, and neither opens what it looks at.
        const info = await lstat(dir);
        if (info.isFile()) throw new ToolInputError(`path ${JSON.stringify(args.path)} is a file, not a folder; use read_file`);
        if (!info.isDirectory()) throw notRegular(args.path, info);
        const entries: string[] = [];
        const complete = await walk(dir, '', args.recursive, entries, ctx.signal);
        if (entries.length === 0) return { output: `[${args.path} is empty]` };
        const note = complete ? '' : `\n[stopped after ${LIST_ENTRY_CAP} entries; list a subfolder to see more]`;
        return { output: entries.join('\n') + note };
      } catch (err) {
        throw asToolInputError(err, args.path);
      }
    });
  },
};

/** Appends the entries below `dir` depth-first in name order; returns false if the cap cut the walk short. */
async function walk(dir: string, prefix: string, recursive: boolean, out: string[], signal: AbortSignal): Promise<boolean> {
  // A deep tree stops at the next folder once the call is cancelled or past its time limit.
  signal.throwIfAborted();
  const dirents = await readdir(dir, { withFileTypes: true });
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of dirents) {
    if (out.length >= LIST_ENTRY_CAP) return false;
    const rel = prefix + entry.name;
    // Symlinks are shown but never followed: they may point outside the workspace or loop.
    if (entry.isSymbolicLink()) {
      out.push(`${rel}@`);
    } else if (entry.isDirectory()) {
      const skip = recursive && NOT_EXPANDED.has(entry.name);
      out.push(skip ? `${rel}/ (not expanded)` : `${rel}/`);
      if (recursive && !skip && !(await walk(path.join(dir, entry.name), `${rel}/`, recursive, out, signal))) return false;
    } else {
      out.push(entry.isFile() ? rel : `${rel}${SPECIAL_SUFFIX}`);
    }
  }
  return true;
}
