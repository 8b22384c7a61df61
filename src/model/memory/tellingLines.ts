/**
 * The telling lines of a tool output: the lines that state an error, a failing check or a value the
 * command printed, wherever they are in it. The session memory keeps them once an output leaves the
 * context, and a head-and-tail view keeps those of its cut middle. Pure; linear in the output
 * (each line is tested on at most its first `SCANNED_CHARS` characters).
 */
import { STATUS_LINE } from './toolResults';

export const TellingKind = {
  /** A compiler, runtime or shell error. */
  error: 'error',
  /** A test or check that did not pass. */
  failingCheck: 'failing_check',
  /** A number, count, version or path the command printed. */
  value: 'value',
} as const;
export type TellingKind = (typeof TellingKind)[keyof typeof TellingKind];

export interface TellingLine {
  /** 0-based line number in the output. */
  readonly index: number;
  /** Character offset of the line in the output. */
  readonly offset: number;
  /** The line, trimmed. */
  readonly text: string;
  readonly kind: TellingKind;
}

/** Characters of a line the rules look at: a minified bundle on one line must not cost more. */
const SCANNED_CHARS = 400;

/**
 * Errors, in the shapes compilers, runtimes and shells print them:
 * - tsc (`file.ts(3,5): error TS2322: …`), rustc (`error[E0308]: …`), gcc/clang/go vet
 *   (`file:line:col: error: …`), eslint and generic `Error:` / `error:` prefixes;
 * - the last line of a Python traceback (`ValueError: …`, pytest's `E   AssertionError: …` and bare
 *   `E   assert …`) and JavaScript's `TypeError: …`, `Uncaught TypeError: …`, node's
 *   `AssertionError [ERR_ASSERTION]: …`;
 * - npm's `npm ERR!`, git's `fatal:`, Go's `panic:`, Rust's `thread '…' panicked at`, make's `*** … Error 2`;
 * - shell failures (`command not found`, dash's `sh: 1: x: not found`, `No such file or directory`,
 *   `Permission denied`, `Segmentation fault`).
 */
const ERROR_RULES: readonly RegExp[] = [
  /\berror(?:\[E\d+\]| TS\d+)?:/i,
  /^(?:E\s+|Uncaught\s+)?(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)\b(?: \[[A-Z_]+\])?(?::|$)/,
  /^(?:npm ERR!|fatal:|panic:|FATAL\b|ERROR\b)/,
  /^E\s+assert\b/,
  /^make(?:\[\d+\])?: \*\*\* /,
  /\bpanicked at\b/,
  /: (?:command not found|No such file or directory|Permission denied)\b|\bsh: (?:line )?\d+: .*\bnot found$|\bSegmentation fault\b|\bcannot find module\b/i,
];

/**
 * Checks that did not pass, as test runners report them:
 * - TAP (`node --test`, prove): `not ok 2 - name`;
 * - pytest: `FAILED tests/x.py::test_y - …`, `ERROR tests/…`, the `=== 1 failed, 3 passed ===` line;
 * - jest/vitest: `FAIL src/x.test.ts`, `✕ name`, `● Suite › name`, `Expected:` / `Received:`;
 * - go test: `--- FAIL: TestX`, `FAIL\tpkg`, and `x_test.go:12: got …, want …` log lines;
 * - cargo test: `test name ... FAILED`, `test result: FAILED`;
 * - assertion prose: "expected … got/received/but was …".
 */
const FAILING_RULES: readonly RegExp[] = [
  /^not ok\b/,
  /^(?:FAILED|ERROR)\s+\S+::/,
  /^=+ .*\b(?:failed|errors?)\b.*=+$/,
  /^(?:FAIL|FAILED)\b/,
  /^[✕✗✘×]\s/,
  /^●\s/,
  /^(?:Expected|Received)(?: value| length| substring)?:/,
  /^--- FAIL:/,
  /^\S+_test\.go:\d+:/,
  /^test \S+ \.\.\. FAILED$/,
  /^test result: FAILED\b/,
  /\bexpected\b.{1,80}\b(?:got|received|but was|but got|actual)\b/i,
];

/**
 * Values a command printed:
 * - counts in test and build summaries ("3 passed, 1 failed in 0.41s", "Tests: 4 total",
 *   "Found 2 errors in 1 file", "12 warnings");
 * - numbers with a unit (durations, sizes, rates, percentages: "7217 ops/s", "48 MB", "87.5%");
 * - `name: number` and `name = number` metric lines (benchmarks, coverage, counters);
 * - versions (`node v20.11.1`, `typescript@5.4.2`, "git version 2.43.0");
 * - paths a command says it created, wrote, saved or installed.
 */
const VALUE_RULES: readonly RegExp[] = [
  /\b\d+ (?:passed|passing|failed|failing|skipped|pending|errors?|warnings?|tests?|suites?|total)\b/i,
  /\b\d[\d,]*(?:\.\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds|min|minutes|B|KB|kB|MB|GB|TB|KiB|MiB|GiB|bytes|%|ops\/s|ops\/sec|req\/s|rps|qps|it\/s)(?![\w/])/,
  /^[A-Za-z][\w .\/()-]{1,40}?\s*[:=]\s*-?\d[\d,]*(?:\.\d+)?\b/,
  /\bversion\s+v?\d+\.\d+|\bv\d+\.\d+\.\d+\b|@\d+\.\d+\.\d+\b/i,
  /^(?:created?|wrote|written|saved|generated|installed|successfully installed|built|compiled|emitted)\b.*(?:\/|\.\w{1,5}\b)/i,
];

/**
 * Lines that only say something passed (`✓ name (5 ms)`, `ok 1 - name`, `--- PASS`, `PASS file`,
 * `test x ... ok`): their durations are not values worth keeping.
 */
const PASSING = /^(?:[✓✔√]\s|ok\b|--- PASS|PASS\b|test \S+ \.\.\. ok$)/;

/** The kind of a line that tells something, or undefined for the rest. */
export function tellingKind(line: string): TellingKind | undefined {
  const text = line.trim().slice(0, SCANNED_CHARS);
  if (text === '' || STATUS_LINE.test(text)) return undefined;
  if (FAILING_RULES.some((rule) => rule.test(text))) return TellingKind.failingCheck;
  if (ERROR_RULES.some((rule) => rule.test(text))) return TellingKind.error;
  if (PASSING.test(text)) return undefined;
  if (VALUE_RULES.some((rule) => rule.test(text))) return TellingKind.value;
  return undefined;
}

/**
 * The telling lines of `output`, in output order, each text once (a line printed again and again is
 * one: the first time it was printed), from `from` to `to` (character offsets; all by default).
 */
export function tellingLines(output: string, from = 0, to = output.length): TellingLine[] {
  const found: TellingLine[] = [];
  const seen = new Set<string>();
  let offset = from;
  let index = 0;
  while (offset < to) {
    const end = output.indexOf('\n', offset);
    const lineEnd = end < 0 || end > to ? to : end;
    const line = output.slice(offset, Math.min(lineEnd, offset + SCANNED_CHARS));
    const kind = tellingKind(line);
    const text = line.trim();
    if (kind !== undefined && !seen.has(text)) {
      seen.add(text);
      found.push({ index, offset, text, kind });
    }
    offset = lineEnd + 1;
    index += 1;
  }
  return found;
}

/** Errors and failing checks before values: what went wrong says more than what was counted. */
export function byImportance(lines: readonly TellingLine[]): TellingLine[] {
  const rank = (line: TellingLine): number => (line.kind === TellingKind.value ? 1 : 0);
  return [...lines].sort((a, b) => rank(a) - rank(b) || a.index - b.index);
}
