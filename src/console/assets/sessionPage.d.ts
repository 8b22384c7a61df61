/**
 * The session page's API answer (`GET /api/sessions/:id`) as the page reads it: the parts of the
 * session state it draws, and the current memory and summary. A declaration file, like
 * transcriptEntry.d.ts, so it adds no script for the browser to load.
 */
import type { EntrySeqRun as SeqRun, TranscriptEntry as Entry } from './transcriptEntry';

/**
 * One role's spend, or one compaction's: the fields of `CallSpend` (src/policy/spend.ts) the page
 * reads. Written again because these scripts compile on their own with `rootDir` here (see
 * tsconfig.json): even a type-only import from src pulls spend.ts into this program (TS6059), and
 * a wider rootDir would emit it as an ES module over the server's CommonJS dist/src/policy/spend.js.
 */
export interface Spend {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  possiblyBilledCalls?: number;
}

export interface Notice {
  at: string;
  step: number;
  reason: string;
  strategy: string;
  tokensBefore: number;
  tokensAfter: number;
  coveredSeqs: SeqRun[];
  truncatedSeqs: SeqRun[];
  replaced?: number;
  summarySeq?: number;
  failed?: string;
  breaker?: string;
  /** Absent in notices from before notices carried their cost. */
  spend?: Spend;
}

export interface State {
  sessionId: string;
  status: string;
  model: string;
  turn: number;
  step: number;
  maxSteps: number;
  runs: number;
  context: { tokens: number; window: number; messages: number };
  spend: { costUsd: number; totalTokens: number; agent: Spend; summary: Spend; delegates?: Spend };
  budget: { maxSteps: number; maxTotalTokens?: number; maxCostUsd?: number; maxRepeatedToolCalls: number; approvals: number };
  paused?: { guard: string; reason: string; until: string };
  compaction: { trigger: number; breaker: { state?: string } & Record<string, unknown>; warning?: string; compactions: number; noticesTotal: number; notices: Notice[] };
  pendingMessages: number;
  delegation?: Delegation;
  warnings: string[];
  outcome?: string;
  answer?: string;
}

/** The session's parent and children (`DelegationReport` in src/session/state.ts). */
export interface Delegation {
  depth: number;
  parentSessionId?: string;
  childrenStarted: number;
  children: Array<{ sessionId: string; step: number; task: string; status: string; outcome?: string; steps?: number; totalTokens?: number; costUsd?: number }>;
}

export interface SessionPage {
  state: State;
  memory?: Entry;
  summary?: Entry;
}
