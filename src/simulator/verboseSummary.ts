/**
 * The `verbose` summarizer's answer, as some models write when asked for a summary and some servers
 * and proxies let through whatever max_tokens said: the asked-for sections with every fact, then
 * near-verbatim excerpts of the messages it was asked to summarize, until the answer is 60–80% of
 * their tokens. Compaction then saves little, and a summary over its budget has to be cut by agentd.
 */
import type { ChatMessage } from '../model/messages';
import { countTextTokens } from '../model/textTokens';
import { PER_MESSAGE_OVERHEAD_TOKENS } from '../model/tokens';
import { hashInt } from './hash';
import { sectionedSummary, type SummaryFacts } from './summaryStyles';
import { messageTokens } from './tokenMemo';
import { cutToTokens } from './tokenCut';

/**
 * Share of the region's tokens the answer takes, picked per request inside this range: 61–79%, so
 * that re-tokenizing at the cut cannot take it outside 60–80%.
 */
const SHARE = { min: 0.61, max: 0.79 } as const;

/** A message quoted line by line (`> `), so headings inside it are not read back as the summary's own. */
function excerpt(message: ChatMessage): string {
  const parts = [message.content ?? ''];
  if (message.role === 'assistant') for (const call of message.tool_calls ?? []) parts.push(`${call.function.name} ${call.function.arguments}`);
  const body = parts.filter((part) => part !== '').join('\n');
  return [`(${message.role})`, ...body.split('\n')].map((line) => `> ${line}`).join('\n');
}

/** The answer's completion tokens are the share of `region`'s tokens; `facts` are gathered from the same region. */
export function verboseSummary(region: readonly ChatMessage[], facts: SummaryFacts): string {
  const regionTokens = region.reduce((sum, message) => sum + messageTokens(message), 0);
  // Deterministic per request: the same region always gets the same share.
  const pick = (hashInt('verbose', regionTokens, region.length, region[region.length - 1]?.content ?? '') % 1000) / 999;
  const target = Math.floor(regionTokens * (SHARE.min + (SHARE.max - SHARE.min) * pick)) - PER_MESSAGE_OVERHEAD_TOKENS;
  const excerpts = region.map(excerpt).join('\n\n');
  let text = `${sectionedSummary(facts)}\n\n## Excerpts\n\n${excerpts}`;
  const missing = target - countTextTokens(text);
  if (missing > 0 && excerpts !== '') {
    // Short on size still: the excerpts again, as often as it takes.
    text += `\n\n${excerpts}`.repeat(Math.ceil(missing / Math.max(1, countTextTokens(excerpts))));
  }
  return cutToTokens(text, target);
}
