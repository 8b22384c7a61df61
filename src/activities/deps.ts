/** What the activities need from the worker: passed in, so tests can hand over real or scripted parts. */
import type OpenAI from 'openai';
import type { TranscriptStore } from '../store/transcriptStore';
import type { ToolRegistry } from '../tools/registry';
import type { CommandSandbox } from '../tools/sandbox';
import type { SessionToolSource } from '../tools/sessionTools';
import type { Tracing } from '../telemetry/tracing';

export interface ActivityDeps {
  store: TranscriptStore;
  /** An OpenAI-compatible endpoint; the API key stays inside this client, in the worker. */
  model: OpenAI;
  /** Built-in and user tools, the same for every session. */
  tools: ToolRegistry;
  /** Tools a session gets besides those, e.g. from MCP servers (the worker's McpHub). */
  extraTools?: SessionToolSource;
  /** Folder under which each session gets a workspace of its own. */
  workspaceRoot: string;
  /** How run_command runs (bubblewrap, or refused): the worker's choice, from its config. */
  commandSandbox: CommandSandbox;
  /**
   * This worker's host and the queue its workspace activities are polled on. Without a host queue
   * (a lone worker embedded in a test or program), sessions keep their tool calls on TASK_QUEUE.
   */
  host?: { hostId: string; taskQueue: string };
  /** OpenTelemetry traces (DESIGN §8 "Traces"); none when absent. */
  tracing?: Tracing;
}
