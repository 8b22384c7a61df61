/**
 * The rules the session memory and pruned views keep lines by (DESIGN §5 "Session memory"), on
 * outputs shaped like real test runners', compilers' and shells', and on user and agent prose.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tellingKind, tellingLines } from '../../src/model/memory/tellingLines';
import { statementKind, statementsOf } from '../../src/model/memory/statements';

describe('telling lines of tool output', () => {
  const cases: ReadonlyArray<readonly [string, string, string | undefined]> = [
    ['pytest failure id', 'FAILED tests/test_parser.py::test_empty - AssertionError: assert 0 == 1', 'failing_check'],
    ['pytest assertion', 'E       AssertionError: assert 0 == 1', 'error'],
    ['pytest summary', '========= 1 failed, 12 passed in 0.41s =========', 'failing_check'],
    ['pytest passing summary', '========= 12 passed in 0.41s =========', 'value'],
    ['pytest collection error', 'ERROR tests/test_io.py::test_load - FileNotFoundError: data.csv', 'failing_check'],
    ['python traceback last line', "ModuleNotFoundError: No module named 'yaml'", 'error'],
    ['python KeyError', "KeyError: 'name'", 'error'],
    ['python traceback header (its last line names the error)', 'Traceback (most recent call last):', undefined],
    ['pip install', 'Successfully installed requests-2.31.0', 'value'],
    ['pip progress', 'Collecting requests', undefined],
    ['jest file', 'FAIL src/parser.test.ts', 'failing_check'],
    ['jest case', '✕ rejects empty input (3 ms)', 'failing_check'],
    ['jest passing case', '✓ parses numbers (2 ms)', undefined],
    ['jest expectation', 'Expected: 2', 'failing_check'],
    ['jest totals', 'Tests:       1 failed, 3 passed, 4 total', 'value'],
    ['jest suite totals', 'Test Suites: 1 failed, 2 passed, 3 total', 'value'],
    ['jest failure heading', '  ● Parser › rejects empty input', 'failing_check'],
    ['vitest case', ' × rejects empty input 3ms', 'failing_check'],
    ['vitest file and case', ' FAIL  src/parser.test.ts > parser > rejects empty input', 'failing_check'],
    ['mocha failing count', '  1 failing', 'value'],
    ['mocha passing count', '  12 passing (40ms)', 'value'],
    ['npm install', 'added 312 packages, and audited 313 packages in 4s', 'value'],
    ['go test', '--- FAIL: TestTokenize (0.00s)', 'failing_check'],
    ['go test log', 'lexer_test.go:42: got 0 tabs, want 2', 'failing_check'],
    ['go package ok', 'ok  \tgithub.com/acme/parser\t0.012s', undefined],
    ['go package cached', 'ok  \tgithub.com/acme/parser\t(cached)', undefined],
    ['go package failed', 'FAIL\tgithub.com/acme/parser\t0.012s', 'failing_check'],
    ['go test run line', '=== RUN   TestTokenize', undefined],
    ['go panic', 'panic: runtime error: index out of range [3] with length 3', 'error'],
    ['cargo case', 'test lexer::keeps_tabs ... FAILED', 'failing_check'],
    ['cargo panic', "thread 'lexer::keeps_tabs' panicked at src/lexer.rs:10:5:", 'error'],
    ['cargo passing case', 'test lexer::keeps_tabs ... ok', undefined],
    ['cargo failed result', 'test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s', 'failing_check'],
    ['cargo passed result', 'test result: ok. 4 passed; 0 failed; 0 ignored', 'value'],
    ['cargo build', 'error: could not compile `parser` (lib) due to 2 previous errors', 'error'],
    ['rustc', 'error[E0308]: mismatched types', 'error'],
    ['tsc', "src/lexer.ts(88,7): error TS2322: Type 'number' is not assignable to type 'TabStop'.", 'error'],
    ['tsc --pretty', "src/index.ts:3:7 - error TS2304: Cannot find name 'foo'.", 'error'],
    ['tsc count', 'Found 2 errors in 1 file.', 'value'],
    ['gcc', "parser.c:12:5: error: expected ';' before '}' token", 'error'],
    ['TAP', 'not ok 2 - parser rejects empty input', 'failing_check'],
    ['TAP pass', 'ok 1 - lexer', undefined],
    ['shell', 'bash: pnpm: command not found', 'error'],
    ['shell file', "cat: config.yml: No such file or directory", 'error'],
    ['zsh', 'zsh: command not found: pnpm', 'error'],
    ['shell permission', 'sh: line 1: ./build.sh: Permission denied', 'error'],
    ['crash', 'Segmentation fault (core dumped)', 'error'],
    ['npm', 'npm ERR! code ELIFECYCLE', 'error'],
    ['git', 'fatal: not a git repository (or any of the parent directories): .git', 'error'],
    ['benchmark', 'parser benchmark: 7217 ops/s', 'value'],
    ['metric', 'peak heap: 48088 KB', 'value'],
    ['coverage', 'coverage: 87.5% of statements', 'value'],
    ['version', 'git version 2.43.0', 'value'],
    ['node --version', 'v20.11.1', 'value'],
    ['git clone progress', "Cloning into 'repo'...", undefined],
    ['created', 'Created wheel for parser: filename=parser-1.2.0-py3-none-any.whl', 'value'],
    ['noise', 'test case 57: ok', undefined],
    ['noise with a number', 'checked file 12', undefined],
    ['agentd status line', 'exit code: 1', undefined],
    ['node:assert (node --test)', 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:', 'error'],
    ['dash', '/bin/sh: 1: pnpm: not found', 'error'],
    ['make', 'make: *** [Makefile:12: build] Error 2', 'error'],
    ['make, nested', 'make[1]: *** [build] Error 1', 'error'],
    ['pytest bare assert', 'E       assert [1] == []', 'error'],
    ['node uncaught', "Uncaught TypeError: Cannot read properties of undefined (reading 'map')", 'error'],
    ['prose mentioning a file not found', 'the docs say the file is not found sometimes', undefined],
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
    ['Use tabs, not spaces, in the Makefile.', 'user', 'constraint'],
    ['Prefer pnpm over npm here, not yarn.', 'user', 'constraint'],
    ['btw the staging db is at db-staging.internal:5432', 'user', 'finding'],
    ['The meeting is at 12:30 tomorrow.', 'user', undefined],
    ['Only change the tokenizer, the CLI stays as it is.', 'user', 'constraint'],
    ['CI reports one failing test, `parser rejects empty input`.', 'user', 'finding'],
    ['It ships with the release train Osprey-7.', 'user', 'finding'],
    ['do NOT modify the public API under any circumstances', 'user', 'constraint'],
    ['pls dont bump any deps', 'user', 'constraint'],
    ['Keep the tests green.', 'user', 'constraint'],
    ['FYI ticket PROJ-1234 tracks this.', 'user', 'finding'],
    ['Go on with part 5 of the clean-up.', 'user', undefined],
    ['Thanks!', 'user', undefined],
    ['Looks good, carry on.', 'user', undefined],
    ["I'll keep the old tokenize() signature and add a strict flag instead.", 'agent', 'decision'],
    ['Decided to use pnpm workspaces for the monorepo.', 'agent', 'decision'],
    ['Going with SQLite instead of Postgres for the test fixtures.', 'agent', 'decision'],
    ['Switched to vitest because jest could not load ESM.', 'agent', 'decision'],
    ['The plan is to split the lexer from the parser.', 'agent', 'decision'],
    ["I'll check the lexer first.", 'agent', undefined],
    ['Let me look at the test file.', 'agent', undefined],
    ['Now let me run the tests to see the current state.', 'agent', undefined],
    ["First, I'll explore the repository structure.", 'agent', undefined],
    ["Next I'll look at the failing test.", 'agent', undefined],
    ["Okay, let's check the config.", 'agent', undefined],
    ['Let me search for usages of tokenize.', 'agent', undefined],
    ['Great, the tests pass now.', 'agent', undefined],
    ['Running the linter now.', 'agent', undefined],
    ['The root cause is TAB_WIDTH = 4 hard-coded in src/parser/lexer.ts.', 'agent', 'finding'],
    ['The bug is in the retry loop: it never resets the counter.', 'agent', 'finding'],
    ['The cold start takes 840 ms on the CI runner.', 'agent', 'finding'],
    ['The project pins typescript 5.4.2.', 'agent', 'finding'],
    ['Turns out the cache key ignores the locale.', 'agent', 'finding'],
    ['The issue was that `parseInt` got a float string.', 'agent', 'finding'],
    ['The build takes 42 seconds on CI.', 'agent', 'finding'],
    ['MAX_RETRIES is 3 in config.ts.', 'agent', 'finding'],
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

  it("keeps an agent's finding and decision from a reply that also narrates, and nothing of a reply that only narrates", () => {
    const reply =
      "Let me look at the lexer. Found it: the bug is in `readIndent`, which assumes TAB_WIDTH = 4. I'll make the tab width a parameter instead of a constant.";
    assert.deepEqual(statementsOf(reply, 'agent'), [
      { kind: 'finding', text: 'Found it: the bug is in `readIndent`, which assumes TAB_WIDTH = 4.' },
      { kind: 'decision', text: "I'll make the tab width a parameter instead of a constant." },
    ]);
    assert.deepEqual(statementsOf('Okay. Now let me run the tests.\n\n    npm test -- --only parser\n\nRunning them now.', 'agent'), []);
  });

  it('reads a user\'s list items as sentences of their own', () => {
    const message = 'Two more things:\n- never commit the .env file\n- the staging release is v2.3.1\n1) thanks for the quick fix!';
    assert.deepEqual(statementsOf(message, 'user'), [
      { kind: 'constraint', text: 'never commit the .env file' },
      { kind: 'finding', text: 'the staging release is v2.3.1' },
    ]);
  });

});
