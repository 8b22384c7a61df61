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
