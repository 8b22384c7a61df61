/** All activities of a worker, built from its dependencies (store, model endpoint, tools). */
import { createCallModel } from './callModel';
import type { ActivityDeps } from './deps';
import { createRunTool } from './runTool';
import { createStoreMessages } from './storeMessages';

export function createActivities(deps: ActivityDeps) {
  return {
    storeMessages: createStoreMessages(deps),
    callModel: createCallModel(deps),
    runTool: createRunTool(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps } from './deps';
