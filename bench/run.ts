/**
 * `npm run bench`: every benchmark on one real stack (a Temporal dev server on a free port, a
 * SQLite transcript store, in-process workers, the strict simulator over HTTP), each against its
 * baseline in the same run. Prints figures as they come and writes bench/results/bench.{json,md}
 * and context.svg. `--only=history,decide` runs a subset (written to bench-history-decide.{json,md});
 * `--summarizers=prose,lossy` narrows the facts and cost benchmarks' summarizer behaviours;
 * `--cost-turns=2` shortens the cost benchmark's sessions (a smoke run); `--scale-sessions=50` and the other
 * `--scale-…` options narrow the scale benchmark (bench/scale.ts); `--note="…"` adds a sentence
 * on the run's conditions to the report.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from '../harness/stack';
import { contextBench } from './context';
import { costBench } from './cost';
import { countingBench } from './counting';
import { decideBench } from './decideBench';
import { delegateBench } from './delegate';
import { depthBench } from './depth';
import { factsBench } from './facts';
import { consoleBench } from './console';
import { fleetBench } from './fleet';
import { historyBench } from './history';
import { launchBench } from './launch';
import { int, num, type BenchBody, type BenchResult } from './lib/result';
import { overheadBench } from './overhead';
import { parallelReadsBench } from './parallelReads';
import { scaleBench, scaleOptions } from './scale';
import { tokensBench, type TokensRuns } from './tokens';

const COMMAND = 'npm run bench';
const RESULTS_DIR = join(__dirname, '..', '..', 'bench', 'results');

interface Shared {
  /** The command line after `--`, for a benchmark's own options. */
  argv: readonly string[];
  stack?: Stack;
  tokens?: TokensRuns;
}

interface Benchmark {
  readonly id: string;
  readonly title: string;
  readonly needsStack: boolean;
  run(stack: Stack | undefined, shared: Shared): Promise<BenchBody>;
}

function need(stack: Stack | undefined): Stack {
  if (!stack) throw new Error('this benchmark needs the stack');
  return stack;
}

const BENCHMARKS: readonly Benchmark[] = [
  { id: 'history', title: '1. History growth: Temporal history bytes per step', needsStack: true, run: (stack) => historyBench(need(stack)) },
  { id: 'overhead', title: '2. Orchestration overhead: steps per second and worker RSS per idle session', needsStack: true, run: (stack) => overheadBench(need(stack)) },
  { id: 'decide', title: '3. Decision cost: `decide` against re-tokenizing every body', needsStack: false, run: async () => decideBench() },
  {
    id: 'tokens',
    title: '4. Tokens billed: compaction on against compaction off',
    needsStack: true,
    run: async (stack, shared) => {
      const { body, runs } = await tokensBench(need(stack));
      shared.tokens = runs;
      return body;
    },
  },
  { id: 'facts', title: '5. What survives compaction', needsStack: true, run: (stack) => factsBench(need(stack)) },
  { id: 'context', title: '6. Context over time', needsStack: true, run: (stack, shared) => contextBench(need(stack), shared.tokens, RESULTS_DIR) },
  { id: 'fleet', title: '7. The fleet from the visibility index: agentd list over 1,000 sessions', needsStack: true, run: (stack) => fleetBench(need(stack)) },
  { id: 'console', title: '8. The console\'s fleet page: one page at 50 and at 200 sessions', needsStack: true, run: (stack) => consoleBench(need(stack)) },
  { id: 'parallelReads', title: 'Parallel reads: tool time of a step with three 300 ms read calls', needsStack: true, run: (stack) => parallelReadsBench(need(stack)) },
  { id: 'depth', title: 'Flat at depth: the last 100 steps of a 2,000-step session against its first 100', needsStack: true, run: (stack) => depthBench(need(stack)) },
  { id: 'launch', title: 'Worker launch to polling: prebuilt workflow bundle against bundling at start', needsStack: true, run: (stack) => launchBench(need(stack)) },
  { id: 'counting', title: 'Token counting: linear in the text, whatever its shape', needsStack: false, run: async () => countingBench() },
  { id: 'delegate', title: 'Delegation: one multi-part job by one session against a parent with children', needsStack: true, run: (stack) => delegateBench(need(stack)) },
  {
    id: 'scale',
    title: 'The fleet at real latency: 20 to 1,000 sessions at a 2 s model, dev server and cluster, against the I/O floor',
    needsStack: true,
    run: (stack, shared) => scaleBench(need(stack), shared.argv),
  },
  { id: 'cost', title: 'Cost of compaction: cached share and cost-weighted input, current policy against the previous one', needsStack: true, run: (stack) => costBench(need(stack)) },
];

/** A bad command line: said in one line, exit code 2, nothing started. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

function selected(argv: readonly string[]): readonly Benchmark[] {
  const only = argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
  if (only === undefined) return BENCHMARKS;
  const ids = only.split(',').map((id) => id.trim()).filter((id) => id !== '');
  const unknown = ids.filter((id) => !BENCHMARKS.some((bench) => bench.id === id));
  if (unknown.length > 0 || ids.length === 0) {
    throw new UsageError(`--only: unknown benchmark ${unknown.join(', ') || '(none given)'}; choose from ${BENCHMARKS.map((bench) => bench.id).join(', ')}`);
  }
  return BENCHMARKS.filter((bench) => ids.includes(bench.id));
}

/** The scale benchmark's own options, checked before any server starts. */
function checkScaleOptions(argv: readonly string[], benchmarks: readonly Benchmark[]): void {
  if (!benchmarks.some((bench) => bench.id === 'scale')) return;
  try {
    scaleOptions(argv);
  } catch (error) {
    throw error instanceof RangeError ? new UsageError(error.message) : error;
  }
}

/** The command as typed, arguments with spaces quoted. */
function commandLine(argv: readonly string[]): string {
  if (argv.length === 0) return COMMAND;
  const quoted = argv.map((arg) => (/\s/.test(arg) ? `'${arg.replace(/'/g, "'\\''")}'` : arg));
  return `${COMMAND} -- ${quoted.join(' ')}`;
}

/** `--note="…"`: a sentence for the report about the conditions of the run (e.g. other work on the machine). */
function note(argv: readonly string[]): string | undefined {
  return argv.find((arg) => arg.startsWith('--note='))?.slice('--note='.length);
}

function machine(): string {
  const cores = cpus();
  return `${cores.length} × ${cores[0]?.model ?? 'unknown CPU'}, ${num(totalmem() / 2 ** 30, 0)} GB, Node ${process.version}, ${process.platform}`;
}

function markdown(results: readonly BenchResult[], startedAt: Date, totalMs: number, loadBefore: number[], loadAfter: number[], argv: readonly string[]): string {
  const command = commandLine(argv);
  const lines = [
    '# agentd benchmarks',
    '',
    `Command: \`${command}\` (builds with \`tsc\`, then runs \`node dist/bench/run.js\`); every figure below comes from this one run.`,
    `Run ${startedAt.toISOString()} on ${machine()}; ${num(totalMs / 60_000, 1)} min in all.`,
    `Load average (1 min) ${num(loadBefore[0] ?? 0, 2)} at the start and ${num(loadAfter[0] ?? 0, 2)} at the end, on ${cpus().length} cores.`,
    ...(note(argv) === undefined ? [] : ['', `Note: ${note(argv)}`]),
    '',
    'Every benchmark runs agentd and its baseline in the same process on the same real stack: a Temporal',
    'dev server (Temporal CLI, fresh SQLite file), the SQLite transcript store, workers in this process',
    '(or a child process where RSS is measured), and the strict simulator (real tokenizer, rejects',
    'oversize requests) reached over HTTP by the real `openai` client. The simulator is a scripted',
    'model: the figures measure agentd, Temporal and the simulator, not a real LLM.',
    '',
    '| benchmark | elapsed |',
    '|---|---:|',
    ...results.map((result) => `| ${result.title} | ${num(result.elapsedMs / 1000, 1)} s |`),
  ];
  for (const result of results) {
    lines.push('', `## ${result.title}`, '', `\`${COMMAND} -- --only=${result.id}\` (figures from the full run above; ${num(result.elapsedMs / 1000, 1)} s)`, '', ...result.markdown);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const benchmarks = selected(argv);
  checkScaleOptions(argv, benchmarks);
  const startedAt = new Date();
  const loadBefore = loadavg();
  console.log(`agentd benchmarks: ${benchmarks.map((bench) => bench.id).join(', ')} on ${machine()}`);
  await mkdir(RESULTS_DIR, { recursive: true });
  const shared: Shared = { argv };
  const results: BenchResult[] = [];
  try {
    if (benchmarks.some((bench) => bench.needsStack)) {
      const started = performance.now();
      shared.stack = await startStack({ logLevel: 'ERROR' });
      const stack = shared.stack;
      // Ctrl-C must not leave a dev server behind.
      process.once('SIGINT', () => {
        console.error('\ninterrupted; stopping the dev server');
        void stack.stop().finally(() => process.exit(130));
      });
      console.log(`stack ready (Temporal dev server on ${shared.stack.temporal.address}) in ${num((performance.now() - started) / 1000, 1)} s`);
    }
    for (const bench of benchmarks) {
      console.log(`\n${bench.title}`);
      const started = performance.now();
      const body = await bench.run(shared.stack, shared);
      const elapsedMs = performance.now() - started;
      console.log(`  (${num(elapsedMs / 1000, 1)} s)`);
      results.push({ id: bench.id, title: bench.title, elapsedMs, ...body });
    }
  } finally {
    await shared.stack?.stop();
  }
  const totalMs = Date.now() - startedAt.getTime();
  const loadAfter = loadavg();
  const json = {
    command: commandLine(argv),
    startedAt: startedAt.toISOString(),
    totalMs,
    machine: machine(),
    loadAverage: { start: loadBefore, end: loadAfter },
    results: Object.fromEntries(results.map((result) => [result.id, { title: result.title, elapsedMs: result.elapsedMs, ...result.figures }])),
  };
  // A subset run keeps the full run's report: it writes bench-<ids>.{json,md} beside it.
  const base = benchmarks.length === BENCHMARKS.length ? 'bench' : `bench-${benchmarks.map((bench) => bench.id).join('-')}`;
  await writeFile(join(RESULTS_DIR, `${base}.json`), `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(join(RESULTS_DIR, `${base}.md`), markdown(results, startedAt, totalMs, loadBefore, loadAfter, argv));
  console.log(`\nall done in ${num(totalMs / 1000, 1)} s; wrote ${int(results.length)} results to bench/results/${base}.json and ${base}.md`);
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`npm run bench: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  console.error(error);
  process.exitCode = 1;
});
