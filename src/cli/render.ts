/** How sessions look in a terminal: one place, so status, follow and demo print alike. */
import type { ChildSessionReport, CompactionNotice, DelegationReport, SessionResult, SessionState, ToolCallRecord } from '../session/state';
import { printable } from './printable';
import { kTokens, renderCompactionSpend, renderShare, renderSpend } from './renderAmounts';

export function renderState(state: SessionState): string {
  const lines = [
    `session   ${state.sessionId}`,
    `status    ${state.status}${state.outcome ? ` (${state.outcome})` : ''}`,
    `model     ${state.model}`,
    `progress  turn ${state.turn}/${state.maxTurns}, step ${state.step}/${state.maxSteps}, run ${state.runs}`,
    `context   ${kTokens(state.context.tokens)} / ${kTokens(state.context.window)} tokens (${renderShare(state.context.tokens / state.context.window)}), ${state.context.messages} messages`,
    `trigger   ${kTokens(state.compaction.trigger)} tokens; ${state.compaction.compactions} compaction(s); breaker ${state.compaction.breaker.open ? 'OPEN' : 'closed'} (${state.compaction.breaker.consecutiveFailures} consecutive failures)`,
    `usage     ${state.usage.modelCalls} model calls, ${kTokens(state.usage.promptTokens)} prompt + ${kTokens(state.usage.completionTokens)} completion tokens`,
  ];
  if (state.workspace) {
    const moved = state.workspace.failovers > 0 ? `, moved ${state.workspace.failovers} time(s) after its host was lost` : '';
    lines.push(`workspace on host ${state.workspace.hostId} (queue ${state.workspace.taskQueue})${moved}`);
  }
  // States of sessions that ended before the spend ledger existed have neither field.
  if (state.spend) lines.push(`spend     ${renderSpend(state.spend)}`);
  if (state.delegation) lines.push(...renderDelegation(state.delegation));
  if (state.paused) {
    lines.push(`paused    ${state.paused.guard}: ${state.paused.reason} (since ${state.paused.since}, ends ${state.paused.until} unless approved)`);
    lines.push(`          agentd approve ${state.sessionId} [--max-steps N] [--max-total-tokens N] [--max-cost-usd X] | agentd cancel ${state.sessionId}`);
  }
  if (state.pendingMessages > 0) lines.push(`pending   ${state.pendingMessages} message(s)`);
  if (state.lastToolCalls.length > 0) {
    lines.push('recent tool calls:');
    for (const call of state.lastToolCalls) lines.push(`  ${renderToolCall(call)}`);
  }
  for (const notice of state.compaction.notices.slice(-5)) lines.push(`  ${renderNotice(notice)}`);
  if (state.compaction.warning) lines.push(`warning   ${state.compaction.warning}`);
  const manual = state.compaction.lastManual;
  if (manual && !manual.compacted) lines.push(`manual    compaction asked at step ${manual.step}: nothing compacted (${manual.reason ?? 'no reason given'})`);
  for (const warning of state.warnings) lines.push(`warning   ${warning}`);
  if (state.answer) lines.push(`answer    ${state.answer}`);
  // Answers, warnings and tool names come from the model, tools and users: shown, never obeyed by the terminal.
  return printable(lines.join('\n'));
}

/** The session's place in its tree: its parent, and its children as it last saw them. */
function renderDelegation(delegation: DelegationReport): string[] {
  const lines = delegation.parentSessionId ? [`parent    ${delegation.parentSessionId} (depth ${delegation.depth})`] : [];
  if (delegation.childrenStarted > 0) {
    const shown = delegation.children.length < delegation.childrenStarted ? `, the newest ${delegation.children.length} shown` : '';
    lines.push(`children  ${delegation.childrenStarted} started${shown}:`);
    for (const child of delegation.children) lines.push(`  ${renderChild(child)}`);
  }
  return lines;
}

function renderChild(child: ChildSessionReport): string {
  const outcome = child.outcome ? ` (${child.outcome})` : '';
  const spent = child.steps !== undefined ? `, ${child.steps} steps, ${kTokens(child.totalTokens ?? 0)} tokens` : '';
  return `${child.sessionId}  ${child.status}${outcome}  from step ${child.step}${spent}  ${JSON.stringify(child.task)}`;
}

export function renderToolCall(call: ToolCallRecord): string {
  const error = call.isError ? `  (error${call.error ? `: ${call.error}` : ''})` : '';
  return printable(`step ${String(call.step).padStart(3)}  ${call.name}${error}  → seq ${call.seq}`);
}

export function renderResult(result: SessionResult): string {
  // Results of sessions from before the breaker warning have no compaction warning to show.
  const warning = result.finalState?.compaction.warning;
  return printable([
    `session ${result.sessionId} ${result.outcome} after ${result.turns} turn(s), ${result.steps} steps, ` +
      `${result.usage.modelCalls} model calls (${kTokens(result.usage.promptTokens)} prompt tokens)`,
    ...(warning ? [`warning: ${warning}`] : []),
    `answer: ${result.answer}`,
  ].join('\n'));
}

/** `context compacted: 182k → 41k (summary, step 19, auto); summary cost 1 call(s) …, $0.0123`, or what failed. */
export function renderNotice(notice: CompactionNotice): string {
  const where = `step ${notice.step}, ${notice.reason}`;
  const retry = notice.halfOpenRetry ? ', half-open retry' : '';
  const breaker = notice.breaker === 'opened' ? '; breaker OPEN' : notice.breaker === 'closed' ? '; breaker closed' : '';
  // Notices from before they carried their spend, and model-free ones, say nothing of cost.
  const billed = notice.spend ? renderCompactionSpend(notice.spend) : '';
  const cost = billed ? `; summary cost ${billed}` : '';
  if (notice.failed) return printable(`compaction failed (${notice.strategy}, ${where}${retry}): ${notice.failed}${breaker}${cost}`);
  const verb = notice.strategy === 'truncate' ? 'context truncated' : 'context compacted';
  return `${verb}: ${kTokens(notice.tokensBefore)} → ${kTokens(notice.tokensAfter)} (${notice.strategy}, ${where}${retry})${breaker}${cost}`;
}
