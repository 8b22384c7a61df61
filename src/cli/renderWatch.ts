/**
 * What `agentd watch` draws: a frame of the session's state (context gauge, turn and step, spend,
 * budget, pause, last tool calls) and the compaction notices not shown yet. Pure: text in, text out.
 */
import type { SessionState } from '../session/state';
import { renderNotice, renderToolCall } from './render';
import { kTokens, renderCost, renderShare, renderSpend } from './renderAmounts';

const GAUGE_CELLS = 20;
const TOOL_CALLS_SHOWN = 5;

/** `128K` rather than `128.0k`: windows are round numbers. */
export function windowLabel(tokens: number): string {
  if (tokens >= 1_000_000 && tokens % 1_000_000 === 0) return `${tokens / 1_000_000}M`;
  if (tokens >= 1000) return `${Math.round(tokens / 1000)}K`;
  return String(tokens);
}

/**
 * `[██████████░░░░|░░░░] 61% of 128K, trigger 75%`: the fill of the window, with `|` where
 * auto-compaction starts. An estimate past the window fills every cell.
 */
export function renderGauge(tokens: number, window: number, trigger: number, cells = GAUGE_CELLS): string {
  const share = (value: number) => Math.min(Math.max(value / window, 0), 1);
  const filled = Math.round(share(tokens) * cells);
  const mark = Math.round(share(trigger) * cells);
  let bar = '';
  for (let cell = 0; cell < cells; cell += 1) {
    if (cell === mark) bar += '|';
    bar += cell < filled ? '█' : '░';
  }
  if (mark >= cells) bar += '|';
  return `[${bar}] ${renderShare(tokens / window)} of ${windowLabel(window)}, trigger ${renderShare(trigger / window)}`;
}

/** The lines of one frame, the same every time for the same state. */
export function renderWatchFrame(state: SessionState): string[] {
  const { budget, spend } = state;
  const lines = [
    `session  ${state.sessionId}  ${state.status}${state.outcome ? ` (${state.outcome})` : ''}  ${state.model}`,
    `progress turn ${state.turn}/${state.maxTurns}, step ${state.step}/${budget.maxSteps}, run ${state.runs}`,
    `context  ${renderGauge(state.context.tokens, state.context.window, state.compaction.trigger)}  (${kTokens(state.context.tokens)} tokens, ${state.context.messages} messages)`,
    `spend    ${renderSpend(spend)}`,
    `budget   ${renderBudget(state)}`,
  ];
  if (state.paused) {
    lines.push(`PAUSED   ${state.paused.guard}: ${state.paused.reason}; until ${state.paused.until}`);
    lines.push(`         go on: agentd approve ${state.sessionId} [--max-steps N] [--max-total-tokens N] [--max-cost-usd X]; stop: agentd cancel ${state.sessionId}`);
  }
  const calls = state.lastToolCalls.slice(-TOOL_CALLS_SHOWN);
  if (calls.length > 0) {
    lines.push('last tool calls:');
    for (const call of calls) lines.push(`  ${renderToolCall(call)}`);
  }
  if (state.answer && state.status !== 'running') lines.push(`answer   ${firstLine(state.answer)}`);
  return lines;
}

function renderBudget(state: SessionState): string {
  const { budget, spend } = state;
  const parts = [`steps ${state.step}/${budget.maxSteps}`];
  parts.push(`tokens ${kTokens(spend.totalTokens)}${budget.maxTotalTokens !== undefined ? `/${kTokens(budget.maxTotalTokens)}` : ''}`);
  if (budget.maxCostUsd !== undefined) parts.push(`cost ${renderCost(spend.costUsd)}/${renderCost(budget.maxCostUsd)}`);
  parts.push(`repeated-call limit ${budget.maxRepeatedToolCalls}`);
  if (budget.approvals > 0) parts.push(`${budget.approvals} approval(s)`);
  return parts.join(' · ');
}

/**
 * Compaction notices recorded since `seen` notices (the state's running total), each once; notices
 * that fell out of the state's short list before a poll saw them are counted, not invented.
 */
export function freshNotices(state: SessionState, seen: number): { lines: string[]; seen: number } {
  const { notices, noticesTotal } = state.compaction;
  const fresh = Math.max(noticesTotal - seen, 0);
  const shown = notices.slice(Math.max(notices.length - fresh, 0));
  const lines = shown.map(renderNotice);
  if (fresh > shown.length) lines.unshift(`(${fresh - shown.length} earlier compaction notice(s) not shown)`);
  return { lines, seen: Math.max(noticesTotal, seen) };
}

/** Lines of `next` that differ from the line at the same place in `previous`: what a log-style watcher prints. */
export function changedLines(previous: readonly string[], next: readonly string[]): string[] {
  return next.filter((line, index) => previous[index] !== line);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
