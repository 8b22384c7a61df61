/**
 * The write_file tool: create or replace a file in the workspace, creating its folders. The new text
 * goes to a temporary file beside the target, which then takes the target's place in one rename: a
 * write cut short (a full disk, a timeout, a crash) leaves the file as it was, never half written.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { withinDeadline } from '../deadline';
import { asToolInputError } from '../fsErrors';
import { notRegular } from '../regularFile';
import type { Tool } from '../tool';
import { resolveInWorkspace } from '../workspace';

const WriteFileInput = z.object({
  path: z.string().describe('File path, relative to the workspace (absolute paths must be inside it).'),
  content: z.string().describe('The complete new content of the file (UTF-8). Replaces any existing content.'),
});

/** Mode of a new file; a replaced file keeps its own (an executable script stays executable). */
const NEW_FILE_MODE = 0o644;

export const writeFileTool: Tool<typeof WriteFileInput> = {
  name: 'write_file',
  description: 'Write a text file in the workspace, replacing it if it exists. Missing parent folders are created.',
  input: WriteFileInput,
  effect: 'write',
  async run(args, ctx) {
    await withinDeadline(ctx, `write_file ${JSON.stringify(args.path)}`, async () => {
      const file = await resolveInWorkspace(ctx.workspace, args.path);
      let replacedMode: number | undefined;
      try {
        await mkdir(path.dirname(file), { recursive: true });
        replacedMode = await modeOfReplaced(file, args.path);
        await writeThenRename(file, args.content, replacedMode ?? NEW_FILE_MODE, ctx.signal);
      } catch (err) {
        throw asToolInputError(untouched(err, args.path, replacedMode !== undefined), args.path);
      }
    });
    return { output: `wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${args.path}` };
  },
};

/** The mode of the file being replaced, undefined when there is none; anything but a regular file is refused. */
async function modeOfReplaced(file: string, label: string): Promise<number | undefined> {
  const existing = await lstat(file).catch((error: unknown) => {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing === undefined) return undefined;
  if (!existing.isFile()) throw notRegular(label, existing);
  return existing.mode & 0o7777;
}

/**
 * Writes a fresh, exclusively created temporary file in the target's folder (so the rename stays on
 * one file system), flushes it, and renames it over the target; on any failure the temporary file
 * is removed and the target is untouched.
 */
async function writeThenRename(file: string, content: string, mode: number, signal: AbortSignal): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    try {
      await handle.writeFile(content, { encoding: 'utf8', signal });
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** A failed write says the file was not touched, so the model knows its old content is still there. The code is kept. */
function untouched(err: unknown, label: string, existed: boolean): unknown {
  if (!(err instanceof Error) || !('code' in err)) return err;
  const state = existed ? 'is unchanged' : 'was not created';
  const error: Error & { code?: unknown } = new Error(`${err.message}; ${JSON.stringify(label)} ${state}`);
  error.code = err.code;
  return error;
}
