/**
 * The numbers a decision projects with, written into it: `applyCompaction` projects the new context
 * from the same numbers, so the event's `tokensAfter` matches the decision's `expectedAfter`. Shared
 * by the compaction and the truncation plans.
 */
import type { DecideInput, ProjectionBasis } from './decision';
import type { ContextEstimate } from './estimate';

export function projectionOf(input: DecideInput, estimate: ContextEstimate): ProjectionBasis {
  return {
    calibration: estimate.calibration,
    perMessageOverheadTokens: input.settings.perMessageOverheadTokens,
    toolSchemaTokens: input.estimateInput.toolSchemaTokens,
    excessTokens: estimate.excessTokens,
  };
}
