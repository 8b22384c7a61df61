/**
 * Benchmark of the compaction decision: time per `decide` call on ledgers of 1K, 10K and 100K
 * entries, against a baseline in the same process that re-tokenizes every message body on each call
 * (what a design without a ledger must do before every model call). Prints a table.
 *
 * Run: `npm run bench:decide` for the table alone; `npm run bench` runs it through `measureDecide`.
 * Bodies are slices of one generated corpus (prose, code, log lines, hex ids), so every message has
 * its own text without holding hundreds of megabytes; sizes follow a long-tailed distribution.
 */
import { countTokens } from 'gpt-tokenizer';
import { CLOSED_BREAKER } from '../src/policy/breaker';
import { decide } from '../src/policy/decide';
import type { DecideInput } from '../src/policy/decision';
import type { LedgerEntry } from '../src/policy/ledger';
import { resolveCompactionSettings } from '../src/policy/settings';
import { seededRandom } from '../harness/random';

const SIZES = [1_000, 10_000, 100_000] as const;
/** Minimum measuring time per size for `decide`, and minimum number of calls. */
const DECIDE_MIN_MS = 500;
const DECIDE_MIN_CALLS = 5;
/** Baseline calls per size: re-tokenizing 100K bodies takes seconds, so fewer there. */
const BASELINE_CALLS: Record<(typeof SIZES)[number], number> = { 1_000: 10, 10_000: 3, 100_000: 1 };
const WINDOW = 200_000;

// Seeded: the same ledgers on every run.
const random = seededRandom(20_240_601);

/** A corpus mixing what agent transcripts hold: prose, code, compiler and test output, ids. */
function corpus(chars: number): string {
  const words = (
    'the a to of and in is for that this with it be as on not are was file test build function return error ' +
    'value const let import export from async await throw new class interface type string number boolean ' +
    'expected received failed passed warning module package install run compile source line column path'
  ).split(' ');
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const r = random();
    let part: string;
    if (r < 0.55) part = ` ${words[Math.floor(random() * words.length)]}`;
    else if (r < 0.65) part = `\n    at ${words[Math.floor(random() * words.length)]} (src/${words[Math.floor(random() * words.length)]}.ts:${Math.floor(random() * 900)}:${Math.floor(random() * 80)})`;
    else if (r < 0.75) part = ` 0x${Math.floor(random() * 2 ** 32).toString(16)}`;
    else if (r < 0.85) part = `\n  ${words[Math.floor(random() * words.length)]}(${Math.floor(random() * 10_000)}) {`;
    else if (r < 0.93) part = `. ${Math.floor(random() * 100_000)} ms`;
    else part = '\n';
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

/** Built on first use, so importing this module costs nothing. */
let corpusText: string | undefined;
function corpusOf(): string {
  return (corpusText ??= corpus(4_000_000));
}

/** Log-uniform size in [min, max]: many small messages, a long tail of large tool output. */
function size(min: number, max: number): number {
  return Math.floor(Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min))));
}

function body(chars: number): string {
  const text = corpusOf();
  const start = Math.floor(random() * (text.length - chars));
  return text.slice(start, start + chars);
}

interface Session {
  ledger: LedgerEntry[];
  bodies: string[];
}

/** A session of `entries` ledger entries shaped like the workflow's: turns of steps with 0–4 tool calls. */
function session(entries: number): Session {
  const ledger: LedgerEntry[] = [];
  const bodies: string[] = [];
  let seq = 0;
  let step = 0;
  let turn = 0;
  const push = (entry: Omit<LedgerEntry, 'seq' | 'tokens' | 'chars'>, text: string): void => {
    // The activity measured each body once, when it stored it.
    ledger.push({ seq, tokens: countTokens(text), chars: text.length, ...entry });
    bodies.push(text);
    seq++;
  };
  push({ role: 'system', turn: 0, step: 0, pinned: true }, body(3_000));
  turn = 1;
  push({ role: 'user', turn: 1, step: 0, pinned: true }, body(800));
  while (ledger.length < entries) {
    if (random() < 0.05) {
      turn++;
      push({ role: 'user', turn, step: 0 }, body(size(50, 2_000)));
      continue;
    }
    step++;
    const calls = Math.min(entries - ledger.length - 1, Math.floor(random() * 5));
    const ids = Array.from({ length: Math.max(0, calls) }, (_, n) => `call_${seq}_${n}`);
    push({ role: 'assistant', turn, step, ...(ids.length > 0 ? { declares: ids } : {}) }, body(size(100, 3_000)));
    for (const id of ids) push({ role: 'tool', turn, step, answers: id }, body(size(100, 30_000)));
  }
  return { ledger, bodies };
}

function inputFor(ledger: LedgerEntry[]): DecideInput {
  return {
    ledger,
    settings: resolveCompactionSettings(WINDOW),
    // The worst case: a manual request always plans the whole compaction (tail, prune, summary region).
    request: 'manual',
    breaker: CLOSED_BREAKER,
    estimateInput: { toolSchemaTokens: 2_000, calibration: 1.05 },
  };
}

function timeDecide(ledger: LedgerEntry[]): { msPerCall: number; calls: number; kind: string } {
  const input = inputFor(ledger);
  let kind = decide(input).kind; // warm-up
  let calls = 0;
  const start = performance.now();
  while (calls < DECIDE_MIN_CALLS || performance.now() - start < DECIDE_MIN_MS) {
    kind = decide(input).kind;
    calls++;
  }
  return { msPerCall: (performance.now() - start) / calls, calls, kind };
}

/** What a ledger-less design does before each model call: count every body again, then decide. */
function timeBaseline(s: Session, calls: number): number {
  const start = performance.now();
  for (let call = 0; call < calls; call++) {
    const recounted = s.ledger.map((entry, i) => ({ ...entry, tokens: countTokens(s.bodies[i]!) }));
    decide(inputFor(recounted));
  }
  return (performance.now() - start) / calls;
}

/** One measured ledger size. */
export interface DecideRow {
  readonly entries: number;
  readonly bodyChars: number;
  readonly bodyTokens: number;
  readonly decideMsPerCall: number;
  readonly decideCalls: number;
  readonly baselineMsPerCall: number;
  readonly baselineCalls: number;
  readonly decision: string;
}

export const DECIDE_WINDOW = WINDOW;

/** Measures every size; `decide` and its baseline on the same ledgers, one after the other. */
export function measureDecide(): DecideRow[] {
  return SIZES.map((entries) => {
    const s = session(entries);
    const measured = timeDecide(s.ledger);
    const baselineCalls = BASELINE_CALLS[entries];
    return {
      entries,
      bodyChars: s.bodies.reduce((total, text) => total + text.length, 0),
      bodyTokens: s.ledger.reduce((total, entry) => total + entry.tokens, 0),
      decideMsPerCall: measured.msPerCall,
      decideCalls: measured.calls,
      baselineMsPerCall: timeBaseline(s, baselineCalls),
      baselineCalls,
      decision: measured.kind,
    };
  });
}

/** The table `npm run bench:decide` prints. */
export function decideTable(rows: readonly DecideRow[]): string[] {
  const cells = rows.map((row) => [
    row.entries.toLocaleString('en-US'),
    `${(row.bodyChars / 1e6).toFixed(1)} MB / ${(row.bodyTokens / 1e6).toFixed(2)}M tok`,
    `${row.decideMsPerCall.toFixed(3)} ms`,
    `${row.decideCalls}`,
    `${row.baselineMsPerCall.toFixed(1)} ms`,
    `${Math.round(row.baselineMsPerCall / row.decideMsPerCall).toLocaleString('en-US')}×`,
    row.decision,
  ]);
  const header = ['entries', 'bodies', 'decide/call', 'calls', 'baseline/call', 'baseline ÷ decide', 'decision'];
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]): string => row.map((cell, i) => cell.padStart(widths[i]!)).join('  ');
  return [
    `decide() on a ${WINDOW.toLocaleString('en-US')}-token window, manual request (full plan), Node ${process.version}`,
    'baseline: countTokens (gpt-tokenizer) on every body, then the same decide',
    '',
    line(header),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...cells.map(line),
  ];
}

// Run directly (`npm run bench:decide`), print the table; imported by bench/run.ts, do nothing.
if (require.main === module) {
  for (const line of decideTable(measureDecide())) console.log(line);
}
