/**
 * How amounts read in the terminal: token counts, dollars, and a session's spend. Shared by the
 * status view (render.ts), the watch frame (renderWatch.ts) and the session list (renderList.ts).
 */
import { cacheHitRatio, type CallSpend } from '../policy/spend';
import type { SpendReport } from '../session/state';

/** `950`, `14.2k`, `182k`: one decimal below 100k tokens, none above. */
export function kTokens(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 100_000 ? 0 : 1)}k` : String(tokens);
}

/** `$0.0431` under a dollar, `$1.25` under a hundred, `$120` above. */
export function renderCost(usd: number): string {
  return usd >= 100 ? `$${usd.toFixed(0)}` : usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** `87%`: a share of 0 to 1 as a whole percentage. */
export function renderShare(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/**
 * `14.2k prompt (9.1k cached) + 1.3k completion in 12 calls; summaries 1 call 3.0k prompt (2.1k
 * cached) + 400 completion, $0.0012; 71% cache hits; $0.0431`. The ratio is worked out from the
 * counts, which states from before it was reported also have.
 */
export function renderSpend(spend: SpendReport): string {
  const { agent, summary } = spend;
  const summaries = summary.calls > 0 ? `; summaries ${summary.calls} call(s) ${promptAndCompletion(summary)}${spend.price ? `, ${renderCost(summary.costUsd)}` : ''}` : '';
  const prompt = agent.promptTokens + summary.promptTokens;
  const hits = prompt > 0 ? `; ${renderShare(cacheHitRatio(agent.cachedTokens + summary.cachedTokens, prompt))} cache hits` : '';
  const possibly = (agent.possiblyBilledCalls ?? 0) + (summary.possiblyBilledCalls ?? 0);
  const unknown = possibly > 0 ? `; ${possibly} request(s) possibly billed, tokens unknown` : '';
  const cost = spend.price ? renderCost(spend.costUsd) : 'cost unknown (no price for this model)';
  const delegates = spend.delegates ? `; children ${spend.delegates.calls} call(s) ${promptAndCompletion(spend.delegates)}` : '';
  return `${promptAndCompletion(agent)} in ${agent.calls} call(s)${summaries}${delegates}${hits}${unknown}; ${cost}`;
}

/**
 * What one compaction's summary call(s) cost: `1 call(s) 14.7k prompt (12.0k cached) + 174
 * completion, $0.0123`; empty for a prune or a truncation, which call no model. The cost is left
 * out when it is 0 (no price for the model).
 */
export function renderCompactionSpend(spend: CallSpend): string {
  const parts: string[] = [];
  if (spend.calls > 0) parts.push(`${spend.calls} call(s) ${promptAndCompletion(spend)}`);
  if (spend.possiblyBilledCalls) parts.push(`${spend.possiblyBilledCalls} possibly billed`);
  if (spend.costUsd > 0) parts.push(renderCost(spend.costUsd));
  return parts.join(', ');
}

function promptAndCompletion(spend: CallSpend): string {
  const cached = spend.cachedTokens > 0 ? ` (${kTokens(spend.cachedTokens)} cached)` : '';
  return `${kTokens(spend.promptTokens)} prompt${cached} + ${kTokens(spend.completionTokens)} completion`;
}
