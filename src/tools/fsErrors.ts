/** Turns the file-system errors a model can cause into ToolInputErrors that name the path. */
import { ToolInputError } from './tool';

/** Errors caused by what the model asked for; anything else (disk full, I/O error) is a real fault. */
const MODEL_CAUSED: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'is a folder, not a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EEXIST: 'already exists',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many levels of symlinks',
};

/** The ToolInputError for `err` if the model caused it, else `err` itself; use as `throw asToolInputError(err, p)`. */
export function asToolInputError(err: unknown, requestedPath: string): unknown {
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  const reason = code === undefined ? undefined : MODEL_CAUSED[code];
  return reason === undefined ? err : new ToolInputError(`path ${JSON.stringify(requestedPath)}: ${reason}`);
}
