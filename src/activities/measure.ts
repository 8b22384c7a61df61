/** The ledger numbers of a stored message. */
import { PER_MESSAGE_OVERHEAD_TOKENS } from '../model/tokens';
import type { MessageMeasure } from '../policy/ledger';
import type { StoredMessage } from '../store/transcriptStore';

/**
 * The store counts whole messages, framing included; the ledger counts content only, because the
 * policy adds `perMessageOverheadTokens` per entry itself (counting the framing twice made every
 * estimate high by 4 tokens a message, and made compaction start early).
 */
export function measureOf(stored: StoredMessage): MessageMeasure {
  const { message } = stored;
  const tokens = Math.max(0, stored.tokens - PER_MESSAGE_OVERHEAD_TOKENS);
  const measure: MessageMeasure = { seq: stored.seq, role: message.role, tokens, chars: stored.chars };
  if (message.role === 'assistant' && message.tool_calls?.length) {
    measure.declares = message.tool_calls.map((call) => call.id);
  }
  if (message.role === 'tool') measure.answers = message.tool_call_id;
  return measure;
}
