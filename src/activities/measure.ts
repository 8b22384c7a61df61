/** The ledger numbers of a stored message. */
import type { MessageMeasure } from '../policy/ledger';
import type { StoredMessage } from '../store/transcriptStore';

export function measureOf(stored: StoredMessage): MessageMeasure {
  const { message } = stored;
  const measure: MessageMeasure = { seq: stored.seq, role: message.role, tokens: stored.tokens, chars: stored.chars };
  if (message.role === 'assistant' && message.tool_calls?.length) {
    measure.declares = message.tool_calls.map((call) => call.id);
  }
  if (message.role === 'tool') measure.answers = message.tool_call_id;
  return measure;
}

export function capText(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}
