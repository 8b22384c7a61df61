/** The table of `agentd list`: one row per session summary from the visibility index. Pure, so a test can call it. */
import type { SessionSummary } from '../client/sessionList';
import { renderShare } from './renderAmounts';

const HEADER = ['SESSION', 'STATUS', 'STEPS', 'CONTEXT', 'COST', 'MODEL', 'STARTED'];

export function renderSessionTable(sessions: readonly SessionSummary[]): string {
  if (sessions.length === 0) return 'no sessions';
  const cells = asTree(sessions).map(({ session, depth }) => [
    depth === 0 ? session.sessionId : `${'  '.repeat(depth - 1)}└ ${session.sessionId}`,
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

/**
 * The sessions in list order, each listed child moved under its parent (newest first among
 * siblings); a child whose parent is not in the list stays where it was, at the top level.
 */
function asTree(sessions: readonly SessionSummary[]): Array<{ session: SessionSummary; depth: number }> {
  const listed = new Set(sessions.map((session) => session.sessionId));
  const childrenOf = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    const parent = session.parentSessionId;
    if (parent !== undefined && listed.has(parent)) childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), session]);
  }
  const rows: Array<{ session: SessionSummary; depth: number }> = [];
  const visit = (session: SessionSummary, depth: number) => {
    rows.push({ session, depth });
    for (const child of childrenOf.get(session.sessionId) ?? []) visit(child, depth + 1);
  };
  for (const session of sessions) if (session.parentSessionId === undefined || !listed.has(session.parentSessionId)) visit(session, 0);
  return rows;
}
