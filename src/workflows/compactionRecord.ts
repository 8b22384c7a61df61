/**
 * The session's record of compactions: a notice for each one done or failed, with what it was billed
 * (the newest kept), and counts by strategy. The `state` query shows it; the carry keeps it across runs.
 */
import { NO_SPEND, reportSpend, sumSpend, type AppliedCompaction, type CallSpend } from '../policy';
import type { CompactionNotice } from '../session/state';
import type { CarriedNotice, CompactionCarry } from './sessionCarry';
import { countCompaction } from './sessionMetrics';

const NOTICES_KEPT = 20;

/** Where in the session a compaction happened, for its notice. */
export interface SessionPosition {
  turn: number;
  step: number;
}

export class CompactionRecord {
  /**
   * What the compaction under way was billed so far, for its notice. Not carried: continue-as-new
   * comes only between steps, never during a compaction.
   */
  private billed?: CallSpend;

  constructor(private readonly carried: CompactionCarry) {}

  /** Model calls the compaction under way was billed for (its summary); the next notice carries them. */
  bill(spend: CallSpend): void {
    this.billed = this.billed ? sumSpend(this.billed, spend) : spend;
  }

  /** The notice of a compaction that was carried out, counted under its strategy. */
  done(applied: AppliedCompaction, at: SessionPosition, marks: Partial<Omit<CompactionNotice, 'spend'>> = {}): CompactionNotice {
    const { event } = applied;
    const notice: CarriedNotice = {
      ...stamp(at),
      reason: event.requestedBy,
      strategy: event.strategy,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
      coveredSeqs: event.coveredSeqs,
      truncatedSeqs: event.truncatedSeqs,
      ...(event.replaced.length > 0 ? { replaced: event.replaced.length } : {}),
      ...(event.summary ? { summarySeq: event.summary.seq } : {}),
      spend: this.takeBilled(),
      ...marks,
    };
    this.carried.byStrategy[notice.strategy] += 1;
    countCompaction(notice.strategy, notice.reason);
    this.push(notice);
    return shown(notice);
  }

  /** The notice of a compaction that failed: it changed nothing, so it is not counted. */
  failed(notice: Omit<CompactionNotice, 'at' | 'turn' | 'step'>, at: SessionPosition): CompactionNotice {
    const stamped: CarriedNotice = { ...stamp(at), ...notice, spend: this.takeBilled() };
    this.push(stamped);
    return shown(stamped);
  }

  /** How many notices the session has recorded so far; `since` reads those recorded after. */
  get recorded(): number {
    return this.carried.noticesTotal;
  }

  /** The notices recorded after the first `count` (those still kept), as the `state` query shows them. */
  since(count: number): CompactionNotice[] {
    const added = this.carried.noticesTotal - count;
    return added > 0 ? this.carried.notices.slice(-added).map(shown) : [];
  }

  report() {
    const counts = this.carried.byStrategy;
    return {
      compactions: counts.prune + counts.summary + counts.truncate,
      byStrategy: { ...counts },
      noticesTotal: this.carried.noticesTotal,
      notices: this.carried.notices.map(shown),
    };
  }

  /** A prune or a truncation calls no model: its notice says so with zeros. */
  private takeBilled(): CallSpend {
    const billed = this.billed ?? { ...NO_SPEND };
    this.billed = undefined;
    return billed;
  }

  private push(notice: CarriedNotice): void {
    this.carried.noticesTotal += 1;
    this.carried.notices.push(notice);
    if (this.carried.notices.length > NOTICES_KEPT) this.carried.notices.shift();
  }
}

/** A carried notice as the `state` query shows it: its spend with the cached and uncached shares. */
function shown(notice: CarriedNotice): CompactionNotice {
  const { spend, ...rest } = notice;
  return spend ? { ...rest, spend: reportSpend(spend) } : rest;
}

function stamp(at: SessionPosition) {
  // Date.now() is the workflow's deterministic clock inside the sandbox.
  return { at: new Date(Date.now()).toISOString(), turn: at.turn, step: at.step };
}

/** The part of the record telemetry reads: which notices one piece of compaction work added. */
export type NoticeLog = Pick<CompactionRecord, 'recorded' | 'since'>;
