/**
 * What the scale benchmark's cells say once they are all in: per-step CPU, the knee of each series,
 * the process that bounds it, and what the per-step figures predict for a larger worker host.
 */
import type { CellResult, Contender } from './cell';

/** Below this share of the ideal steps per second a series has passed its knee. */
export const KNEE_SHARE = 0.9;
/** agentd's worker CPU per step may be at most this many times the I/O floor's. */
export const WORKER_CPU_LIMIT = 2;

export const perStep = (ms: number, cell: CellResult) => (cell.steps === 0 ? Number.NaN : ms / cell.steps);
export const ofIdeal = (cell: CellResult) => cell.stepsPerSecond / cell.idealStepsPerSecond;
/** Cores a process kept busy in the window: its CPU ms per wall ms. */
export const coresUsed = (ms: number, cell: CellResult) => ms / (cell.seconds * 1000);

export interface Pair {
  readonly server: string;
  readonly workers: number;
  readonly sessions: number;
  readonly agentd: CellResult;
  readonly ioFloor: CellResult;
}

export function pairsOf(cells: readonly CellResult[]): Pair[] {
  const find = (like: CellResult, contender: Contender) =>
    cells.find((cell) => cell.contender === contender && cell.server === like.server && cell.workers === like.workers && cell.sessions === like.sessions);
  return cells.flatMap((cell) => {
    if (cell.contender !== 'agentd') return [];
    const ioFloor = find(cell, 'ioFloor');
    return ioFloor === undefined ? [] : [{ server: cell.server, workers: cell.workers, sessions: cell.sessions, agentd: cell, ioFloor }];
  });
}

/** agentd's worker CPU per step over the I/O floor's, in the same server, workers and sessions. */
export const workerCpuRatio = (pair: Pair) => perStep(pair.agentd.cpuMs.workers, pair.agentd) / perStep(pair.ioFloor.cpuMs.workers, pair.ioFloor);

/** Where one process's CPU went, per process, in cores. */
export function profile(cell: CellResult): { readonly process: string; readonly cores: number }[] {
  return [
    { process: cell.workers === 1 ? 'worker' : `${cell.workers} workers`, cores: coresUsed(cell.cpuMs.workers, cell) },
    { process: `Temporal ${cell.server}`, cores: coresUsed(cell.cpuMs.server, cell) },
    ...(cell.cpuMs.database > 0 ? [{ process: 'PostgreSQL', cores: coresUsed(cell.cpuMs.database, cell) }] : []),
    { process: 'benchmark (model + client)', cores: coresUsed(cell.cpuMs.bench, cell) },
  ].sort((a, b) => b.cores - a.cores);
}

export interface Knee {
  readonly server: string;
  readonly workers: number;
  readonly contender: Contender;
  /** The largest fleet still at KNEE_SHARE of the ideal, if any. */
  readonly lastBelow?: CellResult;
  /** The first fleet under it, if any. */
  readonly firstPast?: CellResult;
}

/** Each series (server, workers, contender) in order of fleet size: where it first falls under KNEE_SHARE. */
export function kneesOf(cells: readonly CellResult[]): Knee[] {
  const series = new Map<string, CellResult[]>();
  for (const cell of cells) {
    const key = `${cell.server}|${cell.workers}|${cell.contender}`;
    series.set(key, [...(series.get(key) ?? []), cell]);
  }
  return [...series.values()].map((list) => {
    const sorted = [...list].sort((a, b) => a.sessions - b.sessions);
    const firstPastIndex = sorted.findIndex((cell) => ofIdeal(cell) < KNEE_SHARE);
    const lastBelow = firstPastIndex === -1 ? sorted[sorted.length - 1] : sorted[firstPastIndex - 1];
    const firstPast = firstPastIndex === -1 ? undefined : sorted[firstPastIndex];
    const { server, workers, contender } = sorted[0]!;
    return { server, workers, contender, ...(lastBelow ? { lastBelow } : {}), ...(firstPast ? { firstPast } : {}) };
  });
}

/**
 * Worker RSS each more running session costs: the difference between the two largest fleets of one
 * series over the difference in sessions. A fleet's own RSS over its sessions would charge the
 * first sessions with the heap a worker grows once (the workflow bundle's context, the SDK's pools).
 */
export function marginalRssPerSession(cells: readonly CellResult[], like: { server: string; workers: number; contender: Contender }): number | undefined {
  const series = cells
    .filter((cell) => cell.server === like.server && cell.workers === like.workers && cell.contender === like.contender)
    .sort((a, b) => a.sessions - b.sessions);
  const [smaller, larger] = series.slice(-2);
  if (smaller === undefined || larger === undefined) return undefined;
  return (larger.workerRssBytes.after - smaller.workerRssBytes.after) / (larger.sessions - smaller.sessions);
}

export interface HostPrediction {
  readonly cores: number;
  /** Steps per second the worker processes of such a host can carry, with a quarter of its CPU kept spare. */
  readonly stepsPerSecond: number;
  /** Sessions that rate keeps stepping at the benchmark's model latency. */
  readonly sessions: number;
  /** Server cores (Temporal, and its database) those steps need, at the measured CPU per step. */
  readonly serverCores: number;
}

/** Headroom kept on a host: a worker at full CPU stretches every step. */
const USABLE_SHARE = 0.75;

export function predictHost(cores: number, reference: CellResult, latencyMs: number): HostPrediction {
  const workerMs = perStep(reference.cpuMs.workers, reference);
  const stepsPerSecond = (cores * 1000 * USABLE_SHARE) / workerMs;
  const stepSeconds = (latencyMs + reference.beyondModelMs.p50) / 1000;
  const serverMs = perStep(reference.cpuMs.server + reference.cpuMs.database, reference);
  return { cores, stepsPerSecond, sessions: stepsPerSecond * stepSeconds, serverCores: (stepsPerSecond * serverMs) / 1000 };
}
