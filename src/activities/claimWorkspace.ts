/** The claimWorkspace activity: the worker that runs it gives a session a workspace on its own host. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { TASK_QUEUE } from '../session/definitions';
import { ensureWorkspace } from '../tools/workspace';
import type { ActivityDeps } from './deps';
import { hostIdOf } from './hostId';
import { ActivityFailureType, type ClaimWorkspaceInput, type WorkspaceClaim } from './types';

/** Attempts (about 1 + 2 + 4 s of backoff) that a failing-over session's claim refuses its old host. */
const AVOID_ATTEMPTS = 3;

export function createClaimWorkspace(deps: ActivityDeps) {
  const { workspaceRoot, host } = deps;
  const hostId = hostIdOf(deps);
  return async function claimWorkspace(input: ClaimWorkspaceInput): Promise<WorkspaceClaim> {
    // Refused a few times so another host's worker gets the claim; after that the host being left is
    // the only one there is, and it is back: the session keeps its workspace there.
    if (input.avoidHostId !== undefined && hostId === input.avoidHostId && Context.current().info.attempt <= AVOID_ATTEMPTS) {
      throw ApplicationFailure.create({
        message: `host ${hostId} is the one the session is failing over from`,
        type: ActivityFailureType.workspaceHostAvoided,
      });
    }
    await ensureWorkspace(workspaceRoot, input.sessionId);
    return { hostId, taskQueue: host?.taskQueue ?? TASK_QUEUE };
  };
}
