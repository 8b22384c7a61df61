/** The write_file tool: create or replace a file in the workspace, creating its folders. */
import { constants } from 'node:fs';
import { mkdir } from 'node:fs/promises';
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
      try {
        await mkdir(path.dirname(file), { recursive: true });
        // Truncated only once the open handle is known to be a regular file (O_TRUNC would act before the check).
        handle = await openRegular(file, constants.O_WRONLY | constants.O_CREAT, args.path);
        await handle.truncate(0);
        await handle.writeFile(args.content, { encoding: 'utf8', signal: ctx.signal });
      } catch (err) {
        throw asToolInputError(err, args.path);
      } finally {
        await handle?.close();
      }
    });
    return { output: `wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${args.path}` };
  },
};
