/** Stores messages whose text the workflow already has (system prompt, task, signalled messages). */
import { ApplicationFailure } from '@temporalio/activity';
import type { MessageMeasure } from '../policy/ledger';
import type { ActivityDeps } from './deps';
import { measureOf } from './measure';
import { ActivityFailureType, type StoreMessagesInput } from './types';

export function createStoreMessages({ store }: ActivityDeps) {
  return async function storeMessages(input: StoreMessagesInput): Promise<MessageMeasure[]> {
    if (input.claim !== undefined) {
      const claim = await store.claimSession(input.sessionId, input.claim.firstRunId, { replace: input.claim.replace });
      if (claim.kind === 'taken') {
        // Storing now would hand this run the old rows (puts keep what a seq holds): refuse, and say why.
        throw ApplicationFailure.create({
          type: ActivityFailureType.sessionIdReused,
          nonRetryable: true,
          message:
            `session id ${input.sessionId} was used by an earlier session whose transcript is still stored; ` +
            'start this one under a new id, or ask for a replacement (agentd start --replace-closed)',
        });
      }
    }
    const measures: MessageMeasure[] = [];
    for (const { seq, message } of input.messages) {
      measures.push(measureOf(await store.put(input.sessionId, seq, message)));
    }
    return measures;
  };
}
