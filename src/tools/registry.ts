/** The set of tools a session may call, looked up by name; and the built-in set. */
import type { ToolSpec } from '../model/messages';
import type { ToolFilter } from '../session/toolFilter';
import { delegateTool } from './builtin/delegate';
import { finishTool } from './builtin/finish';
import { listFilesTool } from './builtin/listFiles';
import { readFileTool } from './builtin/readFile';
import { readOutputTool } from './builtin/readOutput';
import { runCommandTool } from './builtin/runCommand';
import { searchTranscriptTool } from './builtin/searchTranscript';
import { writeFileTool } from './builtin/writeFile';
import { type Tool, toolSpec } from './tool';

export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();
  private cachedSpecs: ToolSpec[] | undefined;
  /** Kept per filter, so a filtered registry's specs and token count are worked out once. */
  private readonly filteredBy = new Map<string, ToolRegistry>();

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      // A second tool with the same name would silently shadow the first in the model's eyes.
      if (this.byName.has(tool.name)) throw new Error(`duplicate tool name ${JSON.stringify(tool.name)}`);
      this.byName.set(tool.name, tool);
    }
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /** The JSON schemas sent to the model, in registration order; built once, as they never change. */
  specs(): ToolSpec[] {
    this.cachedSpecs ??= [...this.byName.values()].map(toolSpec);
    return this.cachedSpecs;
  }

  /** The tools, in registration order. */
  all(): Tool[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** This registry as `filter` lets a session see it; itself when the filter leaves everything in. */
  filtered(filter: ToolFilter | undefined): ToolRegistry {
    if (filter === undefined || (filter.only === undefined && (filter.without ?? []).length === 0)) return this;
    const key = JSON.stringify([filter.only ?? null, filter.without ?? []]);
    let registry = this.filteredBy.get(key);
    if (registry === undefined) {
      const only = filter.only === undefined ? undefined : new Set([...filter.only, finishTool.name]);
      const without = new Set(filter.without);
      registry = new ToolRegistry(this.all().filter((tool) => (only === undefined || only.has(tool.name)) && !without.has(tool.name)));
      this.filteredBy.set(key, registry);
    }
    return registry;
  }
}

export const builtinTools: readonly Tool[] = [
  readFileTool,
  writeFileTool,
  listFilesTool,
  runCommandTool,
  readOutputTool,
  searchTranscriptTool,
  delegateTool,
  finishTool,
];

export function createBuiltinRegistry(): ToolRegistry {
  return new ToolRegistry(builtinTools);
}
