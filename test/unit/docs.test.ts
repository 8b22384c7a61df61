/** Every `DESIGN §N` and `DESIGN §N "Name"` citation in src, test and bench has a heading in docs/design.md. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../../harness/repo';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    return statSync(file).isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}

describe('docs/design.md', () => {
  const doc = readFileSync(join(repoRoot(), 'docs', 'design.md'), 'utf8');
  const sections = new Map<number, Set<string>>();
  let current: number | undefined;
  for (const line of doc.split('\n')) {
    const section = /^## (\d+)\. /.exec(line);
    if (section) {
      current = Number(section[1]);
      sections.set(current, new Set());
    }
    const rule = /^### (.+)$/.exec(line);
    if (rule && current !== undefined) sections.get(current)?.add(rule[1]?.trim() ?? '');
  }

  test('every DESIGN citation in src, test, bench and harness resolves to a section and, when quoted, to a rule heading under it', () => {
    const citations: string[] = [];
    const broken: string[] = [];
    for (const file of ['src', 'test', 'bench', 'harness'].flatMap((dir) => sourceFiles(join(repoRoot(), dir)))) {
      const text = readFileSync(file, 'utf8');
      for (const found of text.matchAll(/DESIGN §(\d+)(?: "([^"]+)")?/g)) {
        const where = `${file.slice(repoRoot().length + 1)}: ${found[0]}`;
        citations.push(where);
        const rules = sections.get(Number(found[1]));
        if (!rules || (found[2] !== undefined && !rules.has(found[2]))) broken.push(where);
      }
      if (/\bSTYLE\b/.test(text)) broken.push(`${file}: cites a style note that is not in the repository`);
    }
    assert.ok(citations.length > 10, `${citations.length} citations found`);
    assert.deepEqual(broken, []);
  });

  test('section 2 names every folder under src/', () => {
    const parts = doc.slice(doc.indexOf('## 2. '), doc.indexOf('## 3. '));
    const folders = readdirSync(join(repoRoot(), 'src')).filter((name) => statSync(join(repoRoot(), 'src', name)).isDirectory());
    assert.ok(folders.length > 10, folders.join(', '));
    assert.deepEqual(folders.filter((folder) => !parts.includes(`\`src/${folder}\``)), []);
  });

  test('sections are numbered 1, 2, 3… in order', () => {
    assert.deepEqual([...sections.keys()], [...sections.keys()].map((_, index) => index + 1));
  });
});
