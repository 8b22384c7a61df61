/**
 * Manual compaction, served from one place. The `compact` signal and the `compactNow` update only
 * queue a request; the session serves it at its quiet points: before a step, while it waits (for a
 * message or an approval), and before it ends or continues as new. Requests are numbered, so each
 * `compactNow` caller gets the compaction that served it.
 */
import { condition } from '@temporalio/workflow';
import type { CompactNowResult, ManualCompactionReport } from '../session/state';
import type { CompactionOutcome } from './compactionController';
import type { Decision } from '../policy';

/** Runs one manual compaction on the session's context and adopts what it leaves. */
export type CompactManually = () => Promise<CompactionOutcome & { decision: Decision }>;

export class ManualCompactionQueue {
  private tickets = 0;
  private served = 0;
  /** What the newest manual compaction did; a `compact` signal has no answer, so the state says it. */
  private last: ManualCompactionReport | undefined;

  constructor(
    /** The carried flag: a request not served before continue-as-new is served in the next run. */
    private readonly carried: { manualRequested: boolean },
    private readonly compactManually: CompactManually,
    private readonly currentStep: () => number,
  ) {}

  get lastReport(): ManualCompactionReport | undefined {
    return this.last ? { ...this.last } : undefined;
  }

  /** A request (signal or update) is queued and not served yet. */
  get requested(): boolean {
    return this.carried.manualRequested;
  }

  /** A `compactNow` caller is waiting for its answer. */
  get callerWaiting(): boolean {
    return this.tickets > this.served;
  }

  /** The `compact` signal: no answer, the state shows the result. */
  request(): void {
    this.carried.manualRequested = true;
  }

  /** The `compactNow` update: queues a request and answers once it has been served. */
  async requestAndWait(): Promise<CompactNowResult> {
    this.carried.manualRequested = true;
    const ticket = ++this.tickets;
    await condition(() => this.served >= ticket);
    // Served means recorded; the fallback only satisfies the type.
    return this.last ?? { step: this.currentStep(), compacted: false };
  }

  /** Serves the queued request, if any: the one place a manual compaction runs. */
  async serveIfRequested(): Promise<void> {
    if (this.requested) await this.serve();
  }

  /** Serves a request a waiting `compactNow` caller made, even when the flag was served already. */
  async serve(): Promise<void> {
    this.carried.manualRequested = false;
    const ticket = this.tickets;
    const { notice, decision } = await this.compactManually();
    const step = this.currentStep();
    this.last = notice
      ? { step, compacted: notice.failed === undefined, notice }
      : { step, compacted: false, reason: decision.kind === 'none' ? decision.reason : decision.kind };
    this.served = ticket;
  }

  /**
   * Waits until `done` holds or `timeoutMs` pass (false then; without a timeout, as long as it takes),
   * serving manual compactions asked for meanwhile at once: a `compactNow` caller should not wait for
   * the operator or the next message.
   */
  async waitUntil(done: () => boolean, timeoutMs?: number): Promise<boolean> {
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    for (;;) {
      await this.serveIfRequested();
      if (done()) return true;
      const wake = () => done() || this.carried.manualRequested;
      if (deadline === undefined) {
        await condition(wake);
        continue;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await condition(wake, remaining);
    }
  }
}
