/** The set of tools a session may call, looked up by name; and the built-in set. */
import type { ToolSpec } from '../model/messages';
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
}

export const builtinTools: readonly Tool[] = [
  readFileTool,
  writeFileTool,
  listFilesTool,
  runCommandTool,
  readOutputTool,
  searchTranscriptTool,
  finishTool,
];

export function createBuiltinRegistry(): ToolRegistry {
  return new ToolRegistry(builtinTools);
}
