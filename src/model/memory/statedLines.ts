/**
 * The memory section of what the user and the agent stated in messages that left the context:
 * constraints, decisions and findings, newest first, each once. Pure.
 */
import type { MemoryRow } from './memoryRow';
import { statementsOf } from './statements';
import { sameness, shapeOf } from './text';

/** Statements kept of one message: a long plan must not fill the section alone. */
const PER_MESSAGE = 6;

/**
 * Statements of the user messages (not those quoted whole elsewhere in the memory) and of the
 * agent's reply text among `rows`, newest message first. A statement said again later (or again
 * with other numbers: the newest count holds) is shown once, by its newest saying; one that a newer
 * kept line already contains says nothing more.
 */
export function statedLines(rows: readonly MemoryRow[], quotedWhole: ReadonlySet<number>): string[] {
  const lines: string[] = [];
  const kept: string[] = [];
  for (const row of [...rows].reverse()) {
    const { message } = row;
    const who = message.role === 'user' ? 'user' : message.role === 'assistant' ? 'agent' : undefined;
    if (who === undefined || quotedWhole.has(row.seq) || typeof message.content !== 'string') continue;
    let taken = 0;
    for (const statement of statementsOf(message.content, who)) {
      const same = shapeOf(sameness(statement.text));
      if (kept.some((line) => line.includes(same))) continue;
      kept.push(same);
      lines.push(`- seq ${row.seq} ${who}, ${statement.kind}: ${statement.text}`);
      if (++taken >= PER_MESSAGE) break;
    }
  }
  return lines;
}
