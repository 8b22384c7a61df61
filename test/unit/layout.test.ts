/**
 * The code stays readable as the design's parts: small files with one job each (issue #29). A file
 * that grows past the limit is a sign a part is doing two jobs.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../../harness/repo';

const SOURCE_FILE_MAX_LINES = 300;

/**
 * The scripted agent the simulator answers with: one pure function from a request's messages to
 * the next reply, made of the `[sim …]` directive grammar, how the turn in progress is read back
 * from the messages, and the cycle of steps it takes. Its parts all serve that one script and read
 * best in order, top to bottom; its length is the script's, not a second job.
 */
const OVER_THE_LIMIT_BY_DESIGN = new Set(['src/simulator/script.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    return statSync(file).isDirectory() ? sourceFiles(file) : name.endsWith('.ts') ? [file] : [];
  });
}

describe('source layout', () => {
  test(`no .ts file under src/ is over ${SOURCE_FILE_MAX_LINES} lines, but the simulator's script`, () => {
    const root = repoRoot();
    const sizes = sourceFiles(join(root, 'src')).map((file) => ({
      name: relative(root, file).split(sep).join('/'),
      lines: readFileSync(file, 'utf8').split('\n').length - 1,
    }));
    assert.ok(sizes.length > 100, `the source files were found (${sizes.length})`);
    assert.ok(
      sizes.some((file) => file.name.startsWith('src/workflows/')) && sizes.some((file) => file.name.startsWith('src/console/assets/')),
      'folders are searched recursively',
    );
    for (const name of OVER_THE_LIMIT_BY_DESIGN) assert.ok(existsSync(join(root, name)), `the exception ${name} still exists`);
    const over = sizes.filter((file) => file.lines > SOURCE_FILE_MAX_LINES && !OVER_THE_LIMIT_BY_DESIGN.has(file.name));
    assert.deepEqual(over, [], `split these into parts with one job each: ${JSON.stringify(over)}`);
  });
});
