/**
 * Hands out the seqs under which the store keeps every message, view, summary and memory block, from
 * the session carry's counter. One per run, shared by the transcript and the compaction controller:
 * a seq is taken in workflow code, so a retried activity writes under the same one.
 */
import type { SessionCarry } from './sessionCarry';

export class SeqAllocator {
  constructor(private readonly carried: Pick<SessionCarry, 'nextSeq'>) {}

  next(): number {
    return this.carried.nextSeq++;
  }
}
