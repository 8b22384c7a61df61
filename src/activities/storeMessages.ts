/** Stores messages whose text the workflow already has (system prompt, task, signalled messages). */
import type { MessageMeasure } from '../policy/ledger';
import type { ActivityDeps } from './deps';
import { measureOf } from './measure';
import type { StoreMessagesInput } from './types';

export function createStoreMessages({ store }: ActivityDeps) {
  return async function storeMessages(input: StoreMessagesInput): Promise<MessageMeasure[]> {
    const measures: MessageMeasure[] = [];
    for (const { seq, message } of input.messages) {
      measures.push(measureOf(await store.put(input.sessionId, seq, message)));
    }
    return measures;
  };
}
