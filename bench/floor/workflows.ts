/**
 * The bare floor of a step, for the overhead benchmark only (bundled on its own, never part of
 * src/workflows): per step one "model" activity and one "tool" activity that do nothing, with the
 * same task queue, activity options shape and worker settings as agentd's own step. What agentd
 * adds on top of it (compaction decision, transcript, budget, store writes) is what the ratio shows.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

// Eager dispatch is asked for explicitly, as agentd's activities get it by the SDK's default.
const { floorModel, floorTool } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute', allowEagerDispatch: true });

/** Runs `steps` steps of model-then-tool and returns how many it ran. */
export async function floorSession(steps: number): Promise<number> {
  for (let step = 1; step <= steps; step++) {
    const reply = await floorModel(step);
    await floorTool(reply);
  }
  return steps;
}
