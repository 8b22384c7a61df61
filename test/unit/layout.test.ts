/**
 * The workflow code stays readable as the design's loop: small files with one job each. A file
 * that grows past the limit is a sign a part is doing two jobs.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../../harness/repo';

const WORKFLOW_FILE_MAX_LINES = 300;

describe('source layout', () => {
  test(`no file in src/workflows is over ${WORKFLOW_FILE_MAX_LINES} lines`, () => {
    const dir = join(repoRoot(), 'src', 'workflows');
    const sizes = readdirSync(dir)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => ({ name, lines: readFileSync(join(dir, name), 'utf8').split('\n').length - 1 }));
    assert.ok(sizes.length > 5, 'the workflow files were found');
    const over = sizes.filter((file) => file.lines > WORKFLOW_FILE_MAX_LINES);
    assert.deepEqual(over, [], `split these into parts with one job each: ${JSON.stringify(over)}`);
  });
});
