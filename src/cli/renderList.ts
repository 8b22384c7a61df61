/** The table of `agentd list`: one row per session. Pure, so a test can call it. */
import type { SessionResult, SessionState } from '../session/state';
import { kTokens, renderCost } from './renderAmounts';

export interface SessionRow {
  sessionId: string;
  /** Temporal's status of the workflow (RUNNING, COMPLETED, FAILED…). */
  status: string;
  /** The session's own status or outcome when it answered (waiting_for_approval, finished…). */
  sessionStatus?: string;
  startedAt: string;
  step?: number;
  /** Estimated context tokens and the window, for sessions that answered the state query. */
  context?: { tokens: number; window: number };
  costUsd?: number;
  /** Why a paused session waits. */
  paused?: string;
}

/** A row from the `state` query (running sessions). */
export function rowFromState(base: Pick<SessionRow, 'sessionId' | 'status' | 'startedAt'>, state: SessionState): SessionRow {
  return {
    ...base,
    sessionStatus: state.status,
    step: state.step,
    context: { tokens: state.context.tokens, window: state.context.window },
    ...(state.spend?.price ? { costUsd: state.spend.costUsd } : {}),
    ...(state.paused ? { paused: `${state.paused.guard}: ${state.paused.reason}` } : {}),
  };
}

/** A row from the result of a completed session (no worker needed to read it). */
export function rowFromResult(base: Pick<SessionRow, 'sessionId' | 'status' | 'startedAt'>, result: SessionResult): SessionRow {
  const context = result.finalState?.context;
  return {
    ...base,
    sessionStatus: result.outcome,
    step: result.steps,
    ...(context ? { context: { tokens: context.tokens, window: context.window } } : {}),
    ...(result.spend?.price ? { costUsd: result.spend.costUsd } : {}),
  };
}

const HEADER = ['SESSION', 'STATUS', 'STEPS', 'CONTEXT', 'COST', 'STARTED'];

export function renderSessionTable(rows: readonly SessionRow[]): string {
  if (rows.length === 0) return 'no sessions';
  const cells = rows.map((row) => [
    row.sessionId,
    row.sessionStatus ?? row.status.toLowerCase(),
    row.step === undefined ? '-' : String(row.step),
    row.context ? `${kTokens(row.context.tokens)}/${kTokens(row.context.window)} ${Math.round((row.context.tokens / row.context.window) * 100)}%` : '-',
    row.costUsd === undefined ? '-' : renderCost(row.costUsd),
    row.startedAt,
  ]);
  const widths = HEADER.map((title, column) => Math.max(title.length, ...cells.map((line) => (line[column] ?? '').length)));
  const format = (line: readonly string[]) => line.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  const lines = [format(HEADER), ...cells.map(format)];
  for (const row of rows) if (row.paused) lines.push(`  ${row.sessionId} paused: ${row.paused}`);
  return lines.join('\n');
}
