/**
 * How amounts read in the terminal: token counts, dollars, and a session's spend. Shared by the
 * status view (render.ts), the watch frame (renderWatch.ts) and the session list (renderList.ts).
 */
import type { SpendReport } from '../session/state';

/** `950`, `14.2k`, `182k`: one decimal below 100k tokens, none above. */
export function kTokens(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 100_000 ? 0 : 1)}k` : String(tokens);
}

/** `$0.0431` under a dollar, `$1.25` under a hundred, `$120` above. */
export function renderCost(usd: number): string {
  return usd >= 100 ? `$${usd.toFixed(0)}` : usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** `14.2k prompt (9.1k cached) + 1.3k completion in 12 calls; summaries 1 call 3.0k+400; $0.0431` */
export function renderSpend(spend: SpendReport): string {
  const { agent, summary } = spend;
  const cached = agent.cachedTokens > 0 ? ` (${kTokens(agent.cachedTokens)} cached)` : '';
  const summaries =
    summary.calls > 0
      ? `; summaries ${summary.calls} call(s) ${kTokens(summary.promptTokens)} prompt + ${kTokens(summary.completionTokens)} completion`
      : '';
  const cost = spend.price ? renderCost(spend.costUsd) : 'cost unknown (no price for this model)';
  return `${kTokens(agent.promptTokens)} prompt${cached} + ${kTokens(agent.completionTokens)} completion in ${agent.calls} call(s)${summaries}; ${cost}`;
}
