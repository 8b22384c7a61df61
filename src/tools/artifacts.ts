/**
 * The files a child session made, brought into its parent's workspace: the child works in a folder of
 * its own, and its parent reads what it left under `delegates/<child id>/` (DESIGN §3 "Delegation").
 */
import { cp, lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Most files listed to the model; the copy takes them all. */
const ARTIFACTS_LISTED = 50;
/** A child workspace larger than this is listed, not copied: the parent's disk is not the child's to fill. */
const ARTIFACTS_COPIED_BYTES = 64 * 1024 * 1024;

export interface ArtifactFile {
  /** Relative to the child's workspace, with `/` separators. */
  path: string;
  bytes: number;
}

export interface Artifacts {
  files: ArtifactFile[];
  /** Files beyond `files`, left out of the list. */
  unlisted: number;
  /** Where the files are now, relative to the parent's workspace; absent when they were not copied. */
  copiedTo?: string;
  /** Why they were not copied, when they were not. */
  notCopied?: string;
}

/**
 * Lists `childWorkspace` and copies it to `<parentWorkspace>/delegates/<childId>`. A workspace that is
 * not on this host (`host` named it, but it is on another worker's disk) is reported so, with no files.
 */
export async function collectArtifacts(childWorkspace: string, parentWorkspace: string, childId: string, host: string): Promise<Artifacts> {
  const found = await filesUnder(childWorkspace);
  if (found === undefined) return { files: [], unlisted: 0, notCopied: `its workspace is on host ${host}, not on this worker's` };
  const listed = found.slice(0, ARTIFACTS_LISTED);
  const unlisted = found.length - listed.length;
  if (found.length === 0) return { files: [], unlisted };
  const bytes = found.reduce((sum, file) => sum + file.bytes, 0);
  if (bytes > ARTIFACTS_COPIED_BYTES) return { files: listed, unlisted, notCopied: `they are ${bytes} bytes, over the ${ARTIFACTS_COPIED_BYTES} copied` };
  const copiedTo = path.posix.join('delegates', childId);
  // Symlinks are copied as links, never followed: a child cannot pull host files into the parent this way.
  await cp(childWorkspace, path.join(parentWorkspace, copiedTo), { recursive: true, force: true, verbatimSymlinks: true });
  return { files: listed, unlisted, copiedTo };
}

/** Every regular file under `root`, sorted; undefined when `root` does not exist. */
async function filesUnder(root: string): Promise<ArtifactFile[] | undefined> {
  try {
    await lstat(root);
  } catch {
    return undefined;
  }
  const files: ArtifactFile[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    files.push({ path: path.relative(root, absolute).split(path.sep).join('/'), bytes: (await lstat(absolute)).size });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
