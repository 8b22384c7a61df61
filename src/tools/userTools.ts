/** Loads the user's tools from the module a worker is configured with (AGENTD_TOOLS_MODULE); I/O is the import. */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ToolEffect, type Tool } from './tool';

/** The names the OpenAI API accepts for a function. */
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export type ToolModuleErrorCode = 'import_failed' | 'no_tools_export' | 'bad_tool' | 'duplicate_name';

/** A tools module that cannot be used; the message names the module, and the tool and field at fault. */
export class ToolModuleError extends Error {
  override readonly name = 'ToolModuleError';
  constructor(
    readonly code: ToolModuleErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// A zod schema is recognised by its parse methods: the user's module may bring its own copy of zod.
const ZodLike = z.custom<z.ZodType>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function' &&
    '_zod' in value,
  { message: 'expected a zod 4 schema (z.object({...}))' },
);

const ToolShape = z.object({
  name: z.string().regex(TOOL_NAME_PATTERN, 'expected 1-64 characters of a-z, A-Z, 0-9, _ or -'),
  description: z.string().min(1, 'expected a non-empty description'),
  input: ZodLike,
  effect: z.enum([ToolEffect.read, ToolEffect.write]),
  run: z.custom<Tool['run']>((value) => typeof value === 'function', { message: 'expected a function' }),
});

/**
 * The tools exported by `modulePath` as `tools` (an array) or as the default export (an array, or
 * an object with `tools`). `reserved` are names already taken (the built-ins): a user tool may not shadow one.
 */
export async function loadUserTools(modulePath: string, reserved: readonly string[] = []): Promise<Tool[]> {
  const absolute = resolve(modulePath);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ToolModuleError('import_failed', `tools module ${absolute} could not be loaded: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const exported = toolsExport(loaded);
  if (!Array.isArray(exported)) {
    throw new ToolModuleError(
      'no_tools_export',
      `tools module ${absolute} exports no tools: expected \`export const tools = [...]\` or a default export of an array`,
    );
  }
  const taken = new Set(reserved);
  return exported.map((candidate: unknown, index) => {
    const label = toolLabel(candidate, index);
    const parsed = ToolShape.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') || 'tool';
      throw new ToolModuleError('bad_tool', `tools module ${absolute}: ${label}: ${field}: ${issue?.message ?? 'invalid'}`);
    }
    if (taken.has(parsed.data.name)) {
      throw new ToolModuleError('duplicate_name', `tools module ${absolute}: ${label}: name is already taken by another tool`);
    }
    taken.add(parsed.data.name);
    return candidate as Tool;
  });
}

function toolsExport(loaded: Record<string, unknown>): unknown {
  if (loaded.tools !== undefined) return loaded.tools;
  const fallback = loaded.default;
  // A CommonJS module's `module.exports` arrives as the default export.
  if (fallback !== null && typeof fallback === 'object' && !Array.isArray(fallback) && 'tools' in fallback) {
    return (fallback as { tools: unknown }).tools;
  }
  return fallback;
}

function toolLabel(candidate: unknown, index: number): string {
  const name = typeof candidate === 'object' && candidate !== null ? (candidate as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? `tool ${index} (${JSON.stringify(name)})` : `tool ${index}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
