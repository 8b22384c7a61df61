/** Runs one tool call from the model: parse, validate, run, and turn the model's mistakes into readable errors. */
import type { z } from 'zod';
import { capOutput } from './capOutput';
import type { ToolRegistry } from './registry';
import { keptOutputChars, type Tool, type ToolContext, ToolInputError, type ToolOutcome } from './tool';

/**
 * Mistakes the model can fix (unknown tool, bad JSON, wrong arguments, ToolInputError) come back as an
 * outcome starting with `error: ` so the session goes on; any other exception propagates, for the activity
 * to decide about retries. The output never exceeds `keptOutputChars(ctx)`.
 */
export async function runToolCall(
  registry: ToolRegistry,
  name: string,
  argumentsJson: string,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const outcome = await runUncapped(registry, name, argumentsJson, ctx);
  return { ...outcome, output: capOutput(outcome.output, keptOutputChars(ctx)) };
}

async function runUncapped(
  registry: ToolRegistry,
  name: string,
  argumentsJson: string,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const tool = registry.get(name);
  if (tool === undefined) {
    return errorOutcome(`unknown tool ${JSON.stringify(name)}; available tools: ${registry.names().join(', ')}`);
  }

  const parsed = parseToolArguments(tool, argumentsJson);
  if (!parsed.ok) return errorOutcome(parsed.problem);

  try {
    return await tool.run(parsed.args, ctx);
  } catch (err) {
    if (err instanceof ToolInputError) return errorOutcome(err.message);
    throw err;
  }
}

/**
 * A call's arguments as `tool` takes them, or what is wrong with them in words the model can act on:
 * for every tool, and for `delegate`, whose call the workflow runs.
 */
export function parseToolArguments<Input extends z.ZodType>(
  tool: Tool<Input>,
  argumentsJson: string,
): { ok: true; args: z.infer<Input> } | { ok: false; problem: string } {
  let raw: unknown;
  try {
    // Models send "" for a call without arguments.
    raw = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
  } catch (err) {
    return { ok: false, problem: `invalid JSON arguments for ${tool.name}: ${err instanceof Error ? err.message : String(err)}` };
  }
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: `invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}` };
  return { ok: true, args: parsed.data };
}

function errorOutcome(message: string): ToolOutcome {
  return { output: `error: ${message}` };
}

/** `content: expected string, received undefined; offset: ...` — each issue led by the field it is about. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const message = issue.message.replace(/^Invalid input: /, '');
      return issue.path.length === 0 ? message : `${issue.path.map(String).join('.')}: ${message}`;
    })
    .join('; ');
}
