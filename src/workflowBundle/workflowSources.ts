/**
 * The fingerprint of the compiled workflow code: every file the workflow entry reaches through
 * relative `require`s, hashed. A prebuilt bundle is only as good as the code it was built from, and
 * a worker that ran an older bundle than its own workflow code would break replay determinism.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** tsc's CommonJS output names every runtime import this way; type-only imports are elided. */
const RELATIVE_REQUIRE = /\brequire\("(\.{1,2}\/[^"]+)"\)/g;

export interface WorkflowSources {
  /** Hash of every file's path and content, in path order. */
  readonly fingerprint: string;
  /** The files, relative to `root`, in path order. */
  readonly files: readonly string[];
  /** Hash of each file, by relative path. */
  readonly hashes: Readonly<Record<string, string>>;
}

/**
 * Walks the compiled files from `entry` (a .js file) through relative requires. Packages are left
 * out: their versions are recorded by the manifest instead. `root` makes the recorded paths portable.
 */
export function workflowSources(entry: string, root: string): WorkflowSources {
  const hashes: Record<string, string> = {};
  const pending = [resolve(entry)];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    hashes[relative(root, file)] = createHash('sha256').update(text).digest('hex');
    for (const found of text.matchAll(RELATIVE_REQUIRE)) pending.push(resolveCompiled(dirname(file), found[1]!));
  }
  const files = Object.keys(hashes).sort();
  const whole = createHash('sha256');
  for (const file of files) whole.update(file).update('\0').update(hashes[file]!).update('\n');
  return { fingerprint: whole.digest('hex'), files, hashes };
}

/** `./x` is `./x.js` or `./x/index.js`, as Node resolves it. */
function resolveCompiled(fromDir: string, specifier: string): string {
  const base = resolve(fromDir, specifier);
  if (base.endsWith('.js') || base.endsWith('.json')) return base;
  return existsSync(`${base}.js`) ? `${base}.js` : resolve(base, 'index.js');
}
