/** Collects a stream of text in bounded memory: the head and a rolling tail, counting what falls between. */
import { capOutput, headTailSizes, joinCut } from './capOutput';

/**
 * A command may print gigabytes; we only ever show `capChars` of it, so we keep at most `capChars` of head
 * and about `capChars` of tail and merely count the rest.
 */
export class OutputCollector {
  private head = '';
  private tailChunks: string[] = [];
  private tailChars = 0;
  private total = 0;

  constructor(private readonly capChars: number) {}

  push(chunk: string): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    let rest = chunk;
    if (this.head.length < this.capChars) {
      const take = this.capChars - this.head.length;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
      if (rest.length === 0) return;
    }
    this.tailChunks.push(rest);
    this.tailChars += rest.length;
    // Drop whole chunks only while what remains still covers the cap, so the tail is never short.
    while (this.tailChunks.length > 1 && this.tailChars - (this.tailChunks[0]?.length ?? 0) >= this.capChars) {
      this.tailChars -= this.tailChunks.shift()?.length ?? 0;
    }
  }

  /** Every char seen so far, including the ones not kept. */
  get totalChars(): number {
    return this.total;
  }

  /** The collected text cut to `budgetChars` (which must not exceed the constructor's cap) like capOutput. */
  text(budgetChars: number): string {
    const tail = this.tailChunks.join('');
    // Nothing dropped yet: the whole text is here, and its tail may still lie partly in `head`.
    if (this.head.length + tail.length === this.total) return capOutput(this.head + tail, budgetChars);
    // Something was dropped, so `tail` holds at least capChars chars and covers any tail size below.
    const { head, tail: tailSize } = headTailSizes(Math.min(budgetChars, this.capChars), this.total);
    if (head + tailSize === 0) return this.head.slice(0, Math.max(0, budgetChars));
    return joinCut(this.head.slice(0, head), tail.slice(tail.length - tailSize), this.total - head - tailSize);
  }
}
