/** Context windows of models we know, so a session on one of them need not declare its window. */
import * as openaiModels from 'gpt-tokenizer/models.gen';

/** The built-in simulator's model name and default window. */
export const SIMULATOR_MODEL = 'agentd-sim';
export const SIMULATOR_CONTEXT_WINDOW = 128_000;

interface ModelMetadata {
  readonly context_window?: number;
}

/** The advertised window of a known model, or undefined. */
export function knownContextWindow(model: string): number | undefined {
  if (model === SIMULATOR_MODEL) return SIMULATOR_CONTEXT_WINDOW;
  const spec = (openaiModels as Record<string, ModelMetadata | undefined>)[model];
  return typeof spec?.context_window === 'number' ? spec.context_window : undefined;
}
