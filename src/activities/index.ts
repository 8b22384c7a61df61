/** All activities of a worker, built from its dependencies (store, model endpoint, tools). */
import { createCallModel } from './callModel';
import { createClaimWorkspace } from './claimWorkspace';
import { createCutToolResults } from './cutToolResults';
import type { ActivityDeps } from './deps';
import { createReadDelegation } from './readDelegation';
import { createRunTool } from './runTool';
import { createStoreMessages } from './storeMessages';
import { createStoreSessionMemory } from './storeSessionMemory';
import { createSummarize } from './summarize';

export function createActivities(deps: ActivityDeps) {
  return {
    storeMessages: createStoreMessages(deps),
    callModel: createCallModel(deps),
    runTool: createRunTool(deps),
    cutToolResults: createCutToolResults(deps),
    summarize: createSummarize(deps),
    storeSessionMemory: createStoreSessionMemory(deps),
    claimWorkspace: createClaimWorkspace(deps),
    readDelegation: createReadDelegation(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;

/** What a host's own worker runs: the activities that touch its workspaces. */
export function createHostActivities(deps: ActivityDeps) {
  return { runTool: createRunTool(deps) };
}
export type { ActivityDeps } from './deps';
