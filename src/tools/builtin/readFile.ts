/** The read_file tool: one window of a text file in the workspace, with paging by char offset. */
import { constants } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { withinDeadline } from '../deadline';
import { asToolInputError } from '../fsErrors';
import { PagingFields, pageOf } from '../paging';
import { openRegular } from '../regularFile';
import { type Tool, ToolInputError } from '../tool';
import { resolveInWorkspace } from '../workspace';

/** Paging works on decoded chars, so the whole file is read; past this size the model should use a shell tool. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Bytes sniffed for NUL to tell binary files apart; the same heuristic git and grep use. */
const BINARY_SNIFF_BYTES = 8192;
const ReadFileInput = z.object({
  path: z.string().describe('File path, relative to the workspace (absolute paths must be inside it).'),
  ...PagingFields,
});

export const readFileTool: Tool<typeof ReadFileInput> = {
  name: 'read_file',
  description:
    'Read a text file from the workspace. Long files are returned in windows; the output then ends with a note ' +
    'giving the offset to continue from.',
  input: ReadFileInput,
  effect: 'read',
  quick: true,
  async run(args, ctx) {
    const text = await withinDeadline(ctx, `read_file ${JSON.stringify(args.path)}`, async () =>
      readText(await resolveInWorkspace(ctx.workspace, args.path), args.path, ctx.signal),
    );
    return { output: pageOf(text, JSON.stringify(args.path), args, ctx) };
  },
};

async function readText(file: string, requestedPath: string, signal: AbortSignal): Promise<string> {
  let handle;
  try {
    if ((await lstat(file)).isDirectory()) throw new ToolInputError(`path ${JSON.stringify(requestedPath)} is a folder; use list_files`);
    handle = await openRegular(file, constants.O_RDONLY, requestedPath);
    const info = await handle.stat();
    if (info.size > MAX_FILE_BYTES) {
      throw new ToolInputError(
        `${JSON.stringify(requestedPath)} is ${info.size} bytes, more than read_file handles (${MAX_FILE_BYTES}); ` +
          'use run_command with head, tail, sed or grep',
      );
    }
    const bytes = await handle.readFile({ signal });
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      throw new ToolInputError(
        `${JSON.stringify(requestedPath)} looks binary (${bytes.length} bytes); use run_command with xxd or file`,
      );
    }
    return bytes.toString('utf8');
  } catch (err) {
    throw asToolInputError(err, requestedPath);
  } finally {
    await handle?.close();
  }
}
