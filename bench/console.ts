/**
 * Benchmark `console`: the cost of one fleet page as the fleet grows. The page is one visibility
 * query of 25 sessions plus the `state` query of each running session on it, so its time should
 * not grow with the fleet. Measured over the console's own HTTP API at 50 and at 200 open sessions,
 * against the baseline of asking every session its state (what a page without paging would cost),
 * all in the same run on the same server and worker.
 */
import { startConsole } from '../src/console/server';
import { FLEET_PAGE_SIZE } from '../src/console/api';
import type { Stack } from '../harness/stack';
import { eventually } from '../harness/stack';
import { int, ratio, say, table, type BenchBody } from './lib/result';

const SIZES = [50, 200] as const;
const BATCH = 20;
const PAGE_RUNS = 5;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export async function consoleBench(stack: Stack): Promise<BenchBody> {
  const running = await startConsole({ client: stack.client, sessions: stack.sessions, store: stack.store }, { host: '127.0.0.1', port: 0 });
  const pageUrl = new URL('/api/sessions', running.baseUrl).href;
  try {
    return await stack.withWorker({}, async () => {
      const rows: { sessions: number; pageMs: number; allStatesMs: number; rowsShown: number }[] = [];
      let started = 0;
      for (const size of SIZES) {
        while (started < size) {
          const batch = Math.min(BATCH, size - started);
          await Promise.all(
            Array.from({ length: batch }, (_, index) =>
              stack.sessions.start({ task: `idle ${started + index} [sim steps=0]`, model: 'agentd-sim', awaitMessagesSeconds: 86_400 }, { sessionId: `console-bench-${started + index}` }),
            ),
          );
          started += batch;
        }
        await eventually(
          async () => ((await stack.sessions.queryState(`console-bench-${size - 1}`)).status === 'waiting_for_message' ? true : undefined),
          `session ${size - 1} idle`,
          300_000,
        );
        // The newest sessions may still be finishing their first task: let the worker go quiet, and warm the path once.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        await fetch(pageUrl).then((response) => response.arrayBuffer());
        let rowsShown = 0;
        const pageTimes: number[] = [];
        for (let run = 0; run < PAGE_RUNS; run += 1) {
          pageTimes.push(
            await timed(async () => {
              const response = await fetch(pageUrl);
              if (!response.ok) throw new Error(`fleet page answered ${response.status}`);
              rowsShown = ((await response.json()) as { rows: unknown[] }).rows.length;
            }),
          );
        }
        const ids = Array.from({ length: size }, (_, index) => `console-bench-${index}`);
        const allStatesMs = await timed(() => Promise.all(ids.map((id) => stack.sessions.queryState(id, { waitMs: 10_000 }))));
        rows.push({ sessions: size, pageMs: median(pageTimes), allStatesMs, rowsShown });
        say(`console: ${size} sessions: fleet page ${int(median(pageTimes))} ms (median of ${PAGE_RUNS}, ${rowsShown} rows), every state ${int(allStatesMs)} ms`);
      }
      for (let index = 0; index < started; index += 1) await stack.client.workflow.getHandle(`console-bench-${index}`).terminate('benchmark done');
      const [small, large] = rows;
      return {
        figures: { pageSize: FLEET_PAGE_SIZE, runs: PAGE_RUNS, rows },
        markdown: [
          `One fleet page (GET /api/sessions: a visibility query of ${FLEET_PAGE_SIZE} and the state query of each running session on it), median of ${PAGE_RUNS}, against asking every session its state, at two fleet sizes in the same run:`,
          '',
          ...table(
            ['open sessions', 'fleet page ms', 'rows shown', 'every state ms', 'page / every state'],
            rows.map((row) => [int(row.sessions), int(row.pageMs), String(row.rowsShown), int(row.allStatesMs), ratio(row.pageMs, row.allStatesMs)]),
          ),
          '',
          small && large ? `The page at ${int(large.sessions)} sessions takes ${ratio(large.pageMs, small.pageMs)} of its time at ${int(small.sessions)}; asking every session takes ${ratio(large.allStatesMs, small.allStatesMs)}.` : '',
        ],
      };
    });
  } catch (error) {
    // Said here: once the runner stops the stack, a retrying client call can end the process first.
    console.error('console benchmark failed:', error);
    throw error;
  } finally {
    await running.close();
  }
}
