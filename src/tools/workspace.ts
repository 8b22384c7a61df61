/** Confines file tools to a session's workspace folder, refusing `..`, absolute and symlink escapes. */
import { lstat, mkdir, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { asToolInputError } from './fsErrors';
import { sessionIdProblem } from '../session/sessionId';
import { SANDBOX_WORKSPACE } from './sandbox';
import { ToolInputError } from './tool';

/**
 * Resolves `requestedPath` (relative to the workspace, or absolute inside it) to a real absolute path.
 *
 * Symlinks are resolved through the nearest existing ancestor, so a link inside the workspace that points
 * outside cannot be read or written through. The returned path has its symlinks already resolved, so
 * callers do not follow them again. A command can plant such a link (`ln -s /etc x`); the sandbox keeps
 * the command itself in, and this keeps the file tools, which run as the worker, from following it out.
 * `/workspace/…`, the workspace as sandboxed commands see it, names the workspace too.
 */
export async function resolveInWorkspace(workspace: string, requestedPath: string): Promise<string> {
  if (requestedPath.includes('\0')) throw new ToolInputError(`path ${JSON.stringify(requestedPath)} contains a NUL byte`);
  const lexicalRoot = path.resolve(workspace);
  const realRoot = await realpath(lexicalRoot);
  const candidate = path.resolve(lexicalRoot, fromSandboxView(requestedPath));

  // An absolute path may name the workspace either as configured or by its real path (e.g. /tmp vs /private/tmp).
  const relative = [lexicalRoot, realRoot]
    .map((root) => relativeInside(root, candidate))
    .find((rel): rel is string => rel !== undefined);
  if (relative === undefined) throw new ToolInputError(`path ${JSON.stringify(requestedPath)} is outside the workspace`);

  const resolved = await resolveExistingPrefix(realRoot, relative, requestedPath);
  if (relativeInside(realRoot, resolved) === undefined) throw leadsOutside(requestedPath);
  return resolved;
}

/**
 * The one refusal for a symlink that does not end at something inside the workspace. It names only the path
 * the model gave: not where the link leads, and not whether that exists (a link to `/etc/passwd`, to a
 * missing file, to `/proc/self/cwd` or one the worker may not follow all read the same), so the file tools
 * are no oracle for the host's files (issue 17).
 */
function leadsOutside(requestedPath: string): ToolInputError {
  return new ToolInputError(
    `path ${JSON.stringify(requestedPath)} leads through a symlink outside the workspace or to nothing; ` +
      'file tools follow symlinks only to existing files and folders inside it',
  );
}

/**
 * Creates `<root>/<sessionId>` and returns its absolute path.
 * The session id becomes one folder name, so separators and dot names are refused rather than sanitised.
 */
/** Folders agentd creates for workspaces and the store: the worker's user only. */
const PRIVATE_DIR_MODE = 0o700;

export async function ensureWorkspace(root: string, sessionId: string): Promise<string> {
  const problem = sessionIdProblem(sessionId);
  if (problem !== undefined) throw new Error(`invalid sessionId: ${problem}`);
  const dir = path.resolve(root, sessionId);
  // Private to the worker's user: one session's files are nobody else's to read (0700 on what this creates).
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  return dir;
}

/** `/workspace/a` → `a`: a model that ran `pwd` in the sandbox may name files that way. */
function fromSandboxView(requestedPath: string): string {
  const rel = relativeInside(SANDBOX_WORKSPACE, path.posix.normalize(requestedPath));
  return path.isAbsolute(requestedPath) && rel !== undefined ? rel === '' ? '.' : rel : requestedPath;
}

/** `target` relative to `root` if it is `root` or below it, else undefined. */
function relativeInside(root: string, target: string): string | undefined {
  const rel = path.relative(root, target);
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
  return rel;
}

/**
 * Realpath of the longest existing prefix of `root/relative`, with the missing rest appended.
 * A prefix that exists only as a dangling symlink is refused: writing through it would create its target,
 * wherever that is.
 */
async function resolveExistingPrefix(realRoot: string, relative: string, requestedPath: string): Promise<string> {
  const parts = relative === '' ? [] : relative.split(path.sep);
  for (let keep = parts.length; keep >= 0; keep--) {
    const prefix = path.join(realRoot, ...parts.slice(0, keep));
    try {
      return path.join(await realpath(prefix), ...parts.slice(keep));
    } catch (err) {
      const code = errnoCode(err);
      // The worker owns its workspaces: a folder it may not enter is one a symlink led it to, outside.
      if (code === 'EACCES' || code === 'EPERM') throw leadsOutside(requestedPath);
      // ELOOP, ENAMETOOLONG…: the model's doing, reported as such; other faults propagate.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw asToolInputError(err, requestedPath);
      // Dangling, wherever it points: telling "missing" from "outside" would say what exists outside.
      if (await existsAsLink(prefix)) throw leadsOutside(requestedPath);
    }
  }
  // Unreachable in practice: keep = 0 is the workspace itself, whose realpath succeeded above.
  return realRoot;
}

async function existsAsLink(p: string): Promise<boolean> {
  try {
    return (await lstat(p)).isSymbolicLink();
  } catch {
    return false;
  }
}

function errnoCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}
