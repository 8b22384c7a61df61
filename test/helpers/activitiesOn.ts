/**
 * The activities as a worker builds them, over a test's own SQLite store, reaching the model
 * through the real `openai` client at `baseURL` (a simulator, or nothing when no model is called),
 * running commands in the sandbox this machine's environment asks for.
 */
import { join } from 'node:path';
import { createActivities } from '../../src/activities';
import { createModelClient } from '../../src/model/client';
import type { TranscriptStore } from '../../src/store/transcriptStore';
import { createBuiltinRegistry, type ToolRegistry } from '../../src/tools/registry';
import { detectSandboxFromEnv } from '../../src/worker/sandboxFromConfig';

export type TestActivities = ReturnType<typeof createActivities>;

/** Workspaces go under `dir`/workspaces. */
export function activitiesOn(store: TranscriptStore, dir: string, baseURL: string, tools: ToolRegistry = createBuiltinRegistry()): TestActivities {
  return createActivities({ store, model: createModelClient({ baseURL }), tools, workspaceRoot: join(dir, 'workspaces'), commandSandbox: detectSandboxFromEnv() });
}
