/** Paths in the source tree, the same whether tests run compiled from dist/ or from source. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}
