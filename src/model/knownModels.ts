/**
 * Context windows of models we know, so a session on one of them need not declare its window. Plain
 * data (modelTable.gen.ts), so the client before start and the workflow itself resolve alike.
 */
import { MODEL_TABLE } from './modelTable.gen';

/** The built-in simulator's model name and default window. */
export const SIMULATOR_MODEL = 'agentd-sim';
const SIMULATOR_CONTEXT_WINDOW = 128_000;

/** The advertised window of a known model, or undefined. */
export function knownContextWindow(model: string): number | undefined {
  if (model === SIMULATOR_MODEL) return SIMULATOR_CONTEXT_WINDOW;
  return Object.hasOwn(MODEL_TABLE, model) ? MODEL_TABLE[model]?.contextWindow : undefined;
}
