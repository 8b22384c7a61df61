/** The write_file tool: create or replace a file in the workspace, creating its folders. */
import { constants } from 'node:fs';
import { mkdir, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { withinDeadline } from '../deadline';
import { asToolInputError } from '../fsErrors';
import { openRegular } from '../regularFile';
import type { Tool } from '../tool';
import { resolveInWorkspace } from '../workspace';

const WriteFileInput = z.object({
  path: z.string().describe('File path, relative to the workspace (absolute paths must be inside it).'),
  content: z.string().describe('The complete new content of the file (UTF-8). Replaces any existing content.'),
});

export const writeFileTool: Tool<typeof WriteFileInput> = {
  name: 'write_file',
  description: 'Write a text file in the workspace, replacing it if it exists. Missing parent folders are created.',
  input: WriteFileInput,
  effect: 'write',
  async run(args, ctx) {
    await withinDeadline(ctx, `write_file ${JSON.stringify(args.path)}`, async () => {
      const file = await resolveInWorkspace(ctx.workspace, args.path);
      let handle;
      /** Bytes the file held before it was truncated; set once the truncation happened. */
      let replaced: number | undefined;
      try {
        await mkdir(path.dirname(file), { recursive: true });
        // Truncated only once the open handle is known to be a regular file (O_TRUNC would act before the check).
        handle = await openRegular(file, constants.O_WRONLY | constants.O_CREAT, args.path);
        const earlier = (await handle.stat()).size;
        await handle.truncate(0);
        replaced = earlier;
        await handle.writeFile(args.content, { encoding: 'utf8', signal: ctx.signal });
      } catch (err) {
        throw asToolInputError(handle && replaced !== undefined ? await leftPartial(err, handle, replaced, args) : err, args.path);
      } finally {
        await handle?.close();
      }
    });
    return { output: `wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${args.path}` };
  },
};

/**
 * A write that failed after the truncation (a full disk, say) has left the file neither old nor new:
 * the error says so, so the model does not take the file for intact. The error's code is kept.
 */
async function leftPartial(err: unknown, handle: FileHandle, earlier: number, args: { path: string; content: string }): Promise<unknown> {
  if (!(err instanceof Error)) return err;
  const size = await handle.stat().then((info) => info.size, () => undefined);
  const left = size === undefined ? 'in an unknown state' : `with ${size} of its ${Buffer.byteLength(args.content, 'utf8')} new bytes`;
  const gone = earlier > 0 ? `; its earlier ${earlier} bytes are gone` : '';
  const partial: Error & { code?: unknown } = new Error(`${err.message}; ${JSON.stringify(args.path)} is left ${left}${gone}`);
  if ('code' in err) partial.code = err.code;
  return partial;
}
