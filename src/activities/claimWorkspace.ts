/** The claimWorkspace activity: the worker that runs it gives a session a workspace on its own host. */
import { ApplicationFailure } from '@temporalio/activity';
import { hostname } from 'node:os';
import { TASK_QUEUE } from '../session/definitions';
import { ensureWorkspace } from '../tools/workspace';
import type { ActivityDeps } from './deps';
import { ActivityFailureType, type ClaimWorkspaceInput, type WorkspaceClaim } from './types';

export function createClaimWorkspace({ workspaceRoot, host }: ActivityDeps) {
  return async function claimWorkspace(input: ClaimWorkspaceInput): Promise<WorkspaceClaim> {
    const hostId = host?.hostId ?? hostname();
    // Retried, so another worker of the shared queue gets the next attempt.
    if (input.avoidHostId !== undefined && hostId === input.avoidHostId) {
      throw ApplicationFailure.create({
        message: `host ${hostId} is the one the session is failing over from`,
        type: ActivityFailureType.workspaceHostAvoided,
      });
    }
    await ensureWorkspace(workspaceRoot, input.sessionId);
    return { hostId, taskQueue: host?.taskQueue ?? TASK_QUEUE };
  };
}
