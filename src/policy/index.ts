/**
 * The compaction policy in one import for the workflow: ledger, settings, estimate, breaker and the
 * decision. Pure: no I/O, no Node builtins, no Temporal imports (safe in the workflow sandbox).
 */
export * from './accounting';
export * from './applyCompaction';
export * from './breaker';
export * from './cacheCost';
export * from './compactionEvent';
export * from './decide';
export * from './delegation';
export * from './decision';
export * from './errors';
export * from './estimate';
export * from './ledger';
export * from './oversize';
export * from './selectPrune';
export * from './selectTail';
export * from './seqRuns';
export * from './settings';
export * from './steps';
export * from './thresholds';
export * from './truncate';
export * from './verifyCompaction';
export * from './viewSize';
export * from './budget';
export * from './spend';
