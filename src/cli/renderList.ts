/** The table of `agentd list`: one row per session summary from the visibility index. Pure, so a test can call it. */
import type { SessionSummary } from '../client/sessionList';
import { renderShare } from './renderAmounts';

const HEADER = ['SESSION', 'STATUS', 'STEPS', 'CONTEXT', 'COST', 'MODEL', 'STARTED'];

export function renderSessionTable(sessions: readonly SessionSummary[]): string {
  if (sessions.length === 0) return 'no sessions';
  const cells = sessions.map((session) => [
    session.sessionId,
    session.status,
    session.step === undefined ? '-' : String(session.step),
    session.contextFill === undefined ? '-' : renderShare(session.contextFill),
    // The index keeps cents (fleetAttributes.ts), so more digits would only be zeros.
    session.costUsd === undefined ? '-' : `$${session.costUsd.toFixed(2)}`,
    session.model ?? '-',
    session.startedAt,
  ]);
  const widths = HEADER.map((title, column) => Math.max(title.length, ...cells.map((line) => (line[column] ?? '').length)));
  const format = (line: readonly string[]) => line.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  return [format(HEADER), ...cells.map(format)].join('\n');
}
