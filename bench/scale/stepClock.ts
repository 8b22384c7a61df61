/**
 * Steps as the model endpoint sees them: each answered request is the end of one session's model
 * call, so the time between two answers to the same session is one whole step (model latency,
 * tool, workflow tasks, store). Counting at the endpoint needs nothing from the thing measured.
 */

/** The answers of one measured window. */
export interface WindowCount {
  readonly steps: number;
  readonly seconds: number;
  /** Time between consecutive answers to one session, both inside the window, in ms. */
  readonly stepIntervalsMs: readonly number[];
}

export class StepClock {
  private readonly lastAnswerAt = new Map<string, number>();
  private readonly answers = new Map<string, number>();
  private window: { startedAt: number; steps: number; intervals: number[] } | undefined;

  /** Sessions answered at least `times` times. */
  sessionsAnswered(times: number): number {
    let sessions = 0;
    for (const count of this.answers.values()) if (count >= times) sessions += 1;
    return sessions;
  }

  answered(session: string, at = performance.now()): void {
    const previous = this.lastAnswerAt.get(session);
    this.lastAnswerAt.set(session, at);
    this.answers.set(session, (this.answers.get(session) ?? 0) + 1);
    if (this.window === undefined) return;
    this.window.steps += 1;
    if (previous !== undefined && previous >= this.window.startedAt) this.window.intervals.push(at - previous);
  }

  startWindow(): void {
    this.window = { startedAt: performance.now(), steps: 0, intervals: [] };
  }

  endWindow(): WindowCount {
    const window = this.window;
    if (window === undefined) throw new Error('endWindow before startWindow');
    this.window = undefined;
    return { steps: window.steps, seconds: (performance.now() - window.startedAt) / 1000, stepIntervalsMs: window.intervals };
  }
}

/** The value below which `fraction` of `values` fall (nearest rank). */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}
