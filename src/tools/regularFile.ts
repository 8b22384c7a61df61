/**
 * Opens workspace files for the file tools without ever blocking: only regular files, opened non-blocking
 * and checked again on the open handle. The I/O is the lstat, open and fstat here.
 *
 * Why: open() on a named pipe blocks until a peer opens the other end, and each blocked call holds one of
 * libuv's four threadpool threads; a few sessions running `mkfifo p` then `read_file p` froze every other
 * session on the worker (issue 17). O_NONBLOCK makes such an open return at once (or fail with ENXIO for a
 * writer without a reader), and the fstat after it catches a file swapped for a pipe between check and open.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { ToolInputError } from './tool';

/** `a named pipe (FIFO)`, `a socket`…: what a path is when it is not a regular file or a folder. */
function kindOf(info: Stats): string {
  if (info.isFile()) return 'a regular file';
  if (info.isDirectory()) return 'a folder';
  if (info.isSymbolicLink()) return 'a symlink';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'a special file';
}

/** The refusal for a path that is neither a regular file nor a folder; `label` is the workspace-relative path. */
export function notRegular(label: string, info: Stats): ToolInputError {
  return new ToolInputError(`path ${JSON.stringify(label)} is ${kindOf(info)}; file tools read and write only regular files`);
}

/**
 * Opens `file` (an already resolved absolute path) with `flags`, refusing anything but a regular file before
 * and after the open. ENOENT from the lstat propagates, so a writer can create the file. O_NOFOLLOW refuses a
 * symlink planted at the end of the path since it was resolved.
 */
export async function openRegular(file: string, flags: number, label: string): Promise<FileHandle> {
  const before = await lstat(file).catch((error: unknown) => {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  });
  if (before !== undefined && !before.isFile()) throw notRegular(label, before);
  let handle: FileHandle;
  try {
    handle = await open(file, flags | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    // A pipe with no reader, or a socket: open(2) says ENXIO (O_NONBLOCK keeps it from waiting for a reader).
    if (isErrno(error, 'ENXIO')) throw new ToolInputError(`path ${JSON.stringify(label)} is not a regular file; file tools read and write only regular files`);
    throw error;
  }
  const after = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (!after.isFile()) {
    await handle.close();
    throw notRegular(label, after);
  }
  return handle;
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
