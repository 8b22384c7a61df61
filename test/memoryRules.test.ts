/**
 * The rules the session memory and pruned views keep lines by (DESIGN §5 "Session memory"), on
 * outputs shaped like real test runners', compilers' and shells', and on user and agent prose.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tellingKind, tellingLines } from '../src/activities/memory/tellingLines';
import { statementKind, statementsOf } from '../src/activities/memory/statements';

describe('telling lines of tool output', () => {
  const cases: ReadonlyArray<readonly [string, string, string | undefined]> = [
    ['pytest failure id', 'FAILED tests/test_parser.py::test_empty - AssertionError: assert 0 == 1', 'failing_check'],
    ['pytest assertion', 'E       AssertionError: assert 0 == 1', 'error'],
    ['pytest summary', '========= 1 failed, 12 passed in 0.41s =========', 'failing_check'],
    ['pytest passing summary', '========= 12 passed in 0.41s =========', 'value'],
    ['python traceback last line', "ModuleNotFoundError: No module named 'yaml'", 'error'],
    ['jest file', 'FAIL src/parser.test.ts', 'failing_check'],
    ['jest case', '✕ rejects empty input (3 ms)', 'failing_check'],
    ['jest passing case', '✓ parses numbers (2 ms)', undefined],
    ['jest expectation', 'Expected: 2', 'failing_check'],
    ['jest totals', 'Tests:       1 failed, 3 passed, 4 total', 'value'],
    ['go test', '--- FAIL: TestTokenize (0.00s)', 'failing_check'],
    ['go test log', 'lexer_test.go:42: got 0 tabs, want 2', 'failing_check'],
    ['go package ok', 'ok  \tgithub.com/acme/parser\t0.012s', undefined],
    ['cargo case', 'test lexer::keeps_tabs ... FAILED', 'failing_check'],
    ['cargo panic', "thread 'lexer::keeps_tabs' panicked at src/lexer.rs:10:5:", 'error'],
    ['rustc', 'error[E0308]: mismatched types', 'error'],
    ['tsc', "src/lexer.ts(88,7): error TS2322: Type 'number' is not assignable to type 'TabStop'.", 'error'],
    ['tsc count', 'Found 2 errors in 1 file.', 'value'],
    ['TAP', 'not ok 2 - parser rejects empty input', 'failing_check'],
    ['TAP pass', 'ok 1 - lexer', undefined],
    ['shell', 'bash: pnpm: command not found', 'error'],
    ['shell file', "cat: config.yml: No such file or directory", 'error'],
    ['npm', 'npm ERR! code ELIFECYCLE', 'error'],
    ['git', 'fatal: not a git repository (or any of the parent directories): .git', 'error'],
    ['benchmark', 'parser benchmark: 7217 ops/s', 'value'],
    ['metric', 'peak heap: 48088 KB', 'value'],
    ['version', 'git version 2.43.0', 'value'],
    ['created', 'Created wheel for parser: filename=parser-1.2.0-py3-none-any.whl', 'value'],
    ['noise', 'test case 57: ok', undefined],
    ['noise with a number', 'checked file 12', undefined],
    ['agentd status line', 'exit code: 1', undefined],
  ];
  for (const [what, line, kind] of cases) {
    it(`${what}: ${kind ?? 'nothing'}`, () => assert.equal(tellingKind(line), kind));
  }

  it('finds them anywhere in a long output, each text once, with their offsets', () => {
    const noise = (from: number) => Array.from({ length: 200 }, (_, i) => `test case ${from + i}: ok`).join('\n');
    const output = `${noise(1)}\npeak heap: 48088 KB\n${noise(201)}\nnot ok 7 - keeps tabs\nnot ok 7 - keeps tabs\n${noise(401)}\nexit code: 1`;
    const found = tellingLines(output);
    assert.deepEqual(found.map((line) => line.text), ['peak heap: 48088 KB', 'not ok 7 - keeps tabs']);
    assert.equal(output.slice(found[0]!.offset, found[0]!.offset + found[0]!.text.length), 'peak heap: 48088 KB');
  });
});

describe('statements of user and agent prose', () => {
  const cases: ReadonlyArray<readonly [string, 'user' | 'agent', string | undefined]> = [
    ["Please don't touch the generated files in vendor/ while you are at it.", 'user', 'constraint'],
    ['Never push to main directly.', 'user', 'constraint'],
    ['Only change the tokenizer, the CLI stays as it is.', 'user', 'constraint'],
    ['CI reports one failing test, `parser rejects empty input`.', 'user', 'finding'],
    ['It ships with the release train Osprey-7.', 'user', 'finding'],
    ['Go on with part 5 of the clean-up.', 'user', undefined],
    ["I'll keep the old tokenize() signature and add a strict flag instead.", 'agent', 'decision'],
    ['Decided to use pnpm workspaces for the monorepo.', 'agent', 'decision'],
    ["I'll check the lexer first.", 'agent', undefined],
    ['Let me look at the test file.', 'agent', undefined],
    ['The root cause is TAB_WIDTH = 4 hard-coded in src/parser/lexer.ts.', 'agent', 'finding'],
    ['The bug is in the retry loop: it never resets the counter.', 'agent', 'finding'],
    ['The cold start takes 840 ms on the CI runner.', 'agent', 'finding'],
    ['The project pins typescript 5.4.2.', 'agent', 'finding'],
    ['Step 2 of 12: writing my notes so far to notes/step-1-2.md.', 'agent', undefined],
    ['Step 4 of 12: re-reading notes/step-1-2.md before going on.', 'agent', undefined],
  ];
  for (const [sentence, speaker, kind] of cases) {
    it(`${speaker}: ${sentence} → ${kind ?? 'nothing'}`, () => assert.equal(statementKind(sentence, speaker), kind));
  }

  it('takes a constraint out of the middle of a paragraph, short, and leaves code blocks and directives out', () => {
    const paragraph =
      'Good progress so far, thanks for the notes on the lexer and for the summary of the failing cases you sent earlier today, ' +
      "and please don't touch the generated files in vendor/ while you are at it, since the grammar build rewrites them anyway " +
      'every time somebody runs the release script on their own machine.\n```\nconst never = 1; // must not count\n```\n[sim call run_command {"command":"ls"}]';
    const statements = statementsOf(paragraph, 'user');
    assert.equal(statements.length, 1);
    assert.equal(statements[0]!.kind, 'constraint');
    assert.match(statements[0]!.text, /don't touch the generated files in vendor\//);
    assert.ok(statements[0]!.text.length <= 202, `${statements[0]!.text.length} characters`);
  });
});
