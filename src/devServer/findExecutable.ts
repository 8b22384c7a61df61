/** Finding programs the way a shell does, against an explicit environment so tests can fake it. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** True for an existing regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file name a program has on this platform (`.exe` on Windows). */
export function executableName(name: string): string {
  return process.platform === 'win32' ? `${name}.exe` : name;
}

/** The first executable called `name` on `env.PATH`, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const searchPath = env.PATH ?? env.Path ?? '';
  for (const dir of searchPath.split(path.delimiter)) {
    // An empty PATH entry means the current folder in POSIX shells; we never want that implicitly.
    if (dir === '') continue;
    const candidate = path.join(dir, executableName(name));
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
