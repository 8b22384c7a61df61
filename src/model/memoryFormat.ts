/**
 * The shape of the session memory block (DESIGN §5 "Session memory"), shared by the
 * activity that builds it and the simulator that must not read it as a user's request. Pure.
 */

/** First characters of the session memory message, so people and tools can tell it apart. */
const MEMORY_MESSAGE_PREFIX = '[agentd session memory';

export function isMemoryMessage(text: string | null | undefined): boolean {
  return typeof text === 'string' && text.startsWith(MEMORY_MESSAGE_PREFIX);
}

/** The first line of the memory message: what it is and that no model wrote it. */
export function memoryMessageHeader(throughSeq: number): string {
  return (
    `${MEMORY_MESSAGE_PREFIX}, built by agentd from the transcript through seq ${throughSeq}; not written by a model. ` +
    'It is rebuilt at every compaction; the summary after it is the model\'s own account]'
  );
}

/** Heading of the memory section that quotes the user's messages after the task. */
export const USER_MESSAGES_HEADING = '## Messages from the user after the task (newest first, verbatim)';

/** Indent of a quoted message's lines under its `- seq N:` line. */
const QUOTE_INDENT = '    ';

/** A user message as the memory quotes it whole: its seq line, then every line of it indented. */
export function quotedUserMessage(seq: number, text: string): string {
  const body = text
    .split('\n')
    .map((line) => `${QUOTE_INDENT}${line}`)
    .join('\n');
  return `- seq ${seq}:\n${body}`;
}

/**
 * The newest user message a memory block quotes whole, as it was sent; undefined when it quotes
 * none whole. A model reads it to learn what the turn in progress asked for after compaction
 * summarized the turn's opening message away.
 */
export function newestQuotedUserMessage(memoryText: string): string | undefined {
  const lines = memoryText.split('\n');
  const heading = lines.indexOf(USER_MESSAGES_HEADING);
  if (heading < 0 || !/^- seq \d+:$/.test(lines[heading + 1] ?? '')) return undefined;
  const body: string[] = [];
  for (const line of lines.slice(heading + 2)) {
    if (!line.startsWith(QUOTE_INDENT)) break;
    body.push(line.slice(QUOTE_INDENT.length));
  }
  return body.length === 0 ? undefined : body.join('\n');
}
