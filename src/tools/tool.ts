/** The one shape every tool has: a name, a zod input schema, an effect and a handler. */
import { z } from 'zod';
import type { ToolSpec } from '../model/messages';
import type { SearchHit } from '../store/searchText';
import type { CommandSandbox } from './sandbox';

/**
 * `read` tools may be retried freely; `write` tools change the world and run at most once; a
 * `delegate` call is run by the session workflow itself, as a child session (DESIGN §3 "Delegation").
 */
export const ToolEffect = { read: 'read', write: 'write', delegate: 'delegate' } as const;
export type ToolEffect = (typeof ToolEffect)[keyof typeof ToolEffect];

/** Where and how a tool call runs; built by the runTool activity. */
export interface ToolContext {
  /** Absolute path of the session's workspace folder; file tools never leave it. */
  readonly workspace: string;
  /** Aborted when the activity is cancelled or times out. */
  readonly signal: AbortSignal;
  /** Wall-clock limit for one call. */
  readonly timeoutMs: number;
  /** Longest page a paging tool (read_file, read_output) returns. */
  readonly outputCapChars: number;
  /**
   * Longest output any call keeps (a command's, an MCP tool's): stored whole up to it, longer output
   * keeps its head and tail around a marker. `outputCapChars` when unset.
   */
  readonly storedOutputChars?: number;
  /** How run_command runs commands on this worker: bubblewrap, unsandboxed (opted out) or refused. */
  readonly sandbox: CommandSandbox;
  /** The current session's stored transcript, for tools that page through originals the context shows cut. */
  readonly transcript?: TranscriptReader;
}

/** The most characters of one call's output that are kept and stored. */
export function keptOutputChars(ctx: Pick<ToolContext, 'outputCapChars' | 'storedOutputChars'>): number {
  return Math.max(ctx.outputCapChars, ctx.storedOutputChars ?? 0);
}

/** A narrow, read-only view of one session's transcript store, built by the activity for the current session. */
export interface TranscriptReader {
  /**
   * The full text of the message stored under `seq` (a tool output, a message, or an assistant
   * reply with its tool calls); undefined when the session has no such seq.
   */
  readOutput(seq: number): Promise<string | undefined>;
  /** Full-text search of the session's originals: best matches first. */
  search(query: string, limit: number): Promise<SearchHit[]>;
}

/** What a tool call produced: the text the model sees, and whether the agent declared itself done. */
export interface ToolOutcome {
  readonly output: string;
  readonly finished?: { readonly answer: string };
}

export interface Tool<Input extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: Input;
  readonly effect: ToolEffect;
  /**
   * A read of the workspace's files or the session's store, bounded and done in milliseconds: never a
   * process, a network call or a wait. The session may run a quick call inside its own workflow task
   * (a local activity) and so skip the activity's round trip through the server (DESIGN §8 "Where a step's time goes").
   * Only reads: a call there runs again when its workflow task is lost.
   */
  readonly quick?: boolean;
  /**
   * The JSON schema sent to the model, for tools whose schema is defined elsewhere (an MCP server's
   * `inputSchema`); `input` then only checks the arguments' outer shape. Generated from `input` when absent.
   */
  readonly parameters?: Readonly<Record<string, unknown>>;
  run(args: z.infer<Input>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** For tool authors: checks the handler's argument type against the schema at compile time. */
export function defineTool<Input extends z.ZodType>(tool: Tool<Input>): Tool<Input> {
  return tool;
}

/** A tool failure the model should read and react to (bad path, missing file…), not a crash. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

/** The JSON schema sent to the model, generated from the tool's zod schema. */
export function toolSpec(tool: Tool): ToolSpec {
  if (tool.parameters !== undefined) {
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } } };
  }
  // io 'input': the model writes the arguments, so fields with a .default() are optional to it, not required.
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
}
