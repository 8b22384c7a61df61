/**
 * A compaction that failed (DESIGN §5 "Degrading gracefully"): it counts on the breaker, unless it
 * ran past an open breaker by design, and leaves a notice that says why and whether the breaker
 * opened. What follows, a truncation when the request would not fit, is the controller's.
 */
import { log } from '@temporalio/workflow';
import { recordFailure, type CompactDecision, type ResolvedCompactionSettings } from '../policy';
import type { CompactionNotice } from '../session/state';
import type { BreakerRole } from './breakerRole';
import type { CompactionRecord, SessionPosition } from './compactionRecord';
import type { CompactionCarry } from './sessionCarry';
import { countCompactionFailure } from './sessionMetrics';

export interface CompactionFailure {
  readonly decision: CompactDecision;
  readonly at: SessionPosition;
  /** What went wrong, for the notice and the log. */
  readonly why: string;
  /** The failure's code, kept on the breaker. */
  readonly reason: string;
  readonly role: BreakerRole;
}

/** Counts `failure` on the carried breaker and records its notice. */
export function recordCompactionFailure(
  sessionId: string,
  carried: CompactionCarry,
  settings: ResolvedCompactionSettings,
  record: CompactionRecord,
  { decision, at, why, reason, role }: CompactionFailure,
): CompactionNotice {
  const wasOpen = carried.breaker.open;
  if (!role.bypass) {
    const failure = { step: at.step, coolDownSteps: settings.breakerCoolDownSteps, reason };
    carried.breaker = recordFailure(carried.breaker, settings.breakerThreshold, role.graceful ? failure : undefined);
  }
  log.warn('compaction failed', { sessionId, why, breaker: carried.breaker });
  countCompactionFailure(!wasOpen && carried.breaker.open);
  return record.failed(
    {
      reason: decision.requestedBy,
      strategy: decision.strategy,
      tokensBefore: decision.estimateBefore,
      tokensAfter: decision.estimateBefore,
      coveredSeqs: [],
      truncatedSeqs: [],
      failed: why,
      ...(role.halfOpen ? { halfOpenRetry: true } : {}),
      ...(!wasOpen && carried.breaker.open ? { breaker: 'opened' as const } : {}),
    },
    at,
  );
}
