/** The write_file tool: create or replace a file in the workspace, creating its folders. */
import { constants } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { asToolInputError } from '../fsErrors';
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
    const file = await resolveInWorkspace(ctx.workspace, args.path);
    try {
      await mkdir(path.dirname(file), { recursive: true });
      // The path is resolved already; O_NOFOLLOW refuses a link planted at its end since (ELOOP).
      await writeFile(file, args.content, {
        encoding: 'utf8',
        flag: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      });
    } catch (err) {
      throw asToolInputError(err, args.path);
    }
    return { output: `wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${args.path}` };
  },
};
