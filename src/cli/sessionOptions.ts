/**
 * The options that shape a session's input, shared by `agentd start` and `agentd schedule create`:
 * a scheduled session is started with exactly what `start` would send.
 */
import type { AgentdConfig } from '../config/config';
import type { SessionRequest } from '../session/resolve';
import { positiveInt, positiveNumber, wholeNumber } from './args';
import { UsageError } from './command';

export const SESSION_OPTIONS = {
  model: { type: 'string' },
  'context-window': { type: 'string' },
  'system-prompt': { type: 'string' },
  'max-steps': { type: 'string' },
  'max-turns': { type: 'string' },
  'max-total-tokens': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  'max-repeated-tool-calls': { type: 'string' },
  'approval-timeout': { type: 'string' },
  'await-messages': { type: 'string' },
  'tool-timeout': { type: 'string' },
  'max-tool-calls': { type: 'string' },
  'workspace-failover': { type: 'string' },
  compaction: { type: 'string' },
  tools: { type: 'string' },
  delegation: { type: 'string' },
  'no-delegate': { type: 'boolean' },
} as const;

type SessionFlags = { [K in Exclude<keyof typeof SESSION_OPTIONS, 'no-delegate'>]?: string } & { 'no-delegate'?: boolean };

export const SESSION_OPTIONS_HELP = `  --model NAME             model at the worker's endpoint (env AGENTD_MODEL; agentd-sim without an endpoint)
  --context-window N       usable context window in tokens (required for models agentd does not know)
  --system-prompt TEXT     replaces the default system prompt
  --max-steps N            pause for approval after N model calls (default 200)
  --max-total-tokens N     pause for approval once N tokens are billed (prompt + completion, summaries too)
  --max-cost-usd X         pause for approval once X USD are spent (price: AGENTD_PRICES, gpt-tokenizer, simulator)
  --max-repeated-tool-calls N
                           pause when one tool is called N times in a row with the same arguments (default 4)
  --approval-timeout SECS  a paused session ends after this long without 'agentd approve'; 0 ends it at once (default 86400)
  --max-turns N            stop after N turns (default 10)
  --await-messages SECS    after a turn, wait this long for 'agentd send' before completing (default 0)
  --tool-timeout SECS      wall-clock limit of one tool call (default 120)
  --max-tool-calls N       tool calls of one model reply that run; the model is told of the rest (default 32, at most 500)
  --workspace-failover SECS  move to a fresh workspace on another host when the workspace's host
                           takes no tool call for this long (default 300)
  --compaction JSON        compaction settings, e.g. '{"reserveTokens":8192,"tailTurns":2}' (docs/guide/compaction.md)
  --tools A,B,…            only these tools (finish is always there); all of the worker's by default
  --delegation JSON        delegation settings, e.g. '{"maxDepth":1,"maxChildrenPerStep":2}' (docs/guide/delegate.md)
  --no-delegate            do not offer the delegate tool (same as --delegation '{"enabled":false}')`;

/** The request the flags describe, for `task`; every bad flag is named, before anything connects. */
export function sessionRequestOf(values: SessionFlags, task: string, config: AgentdConfig): SessionRequest {
  const model = values.model ?? config.defaultModel;
  if (!model) throw new UsageError('--model: no model given and AGENTD_MODEL is not set');
  return {
    task,
    model,
    ...defined('contextWindow', positiveInt('context-window', values['context-window'])),
    ...defined('systemPrompt', values['system-prompt']),
    ...defined('maxSteps', positiveInt('max-steps', values['max-steps'])),
    ...defined('maxTurns', positiveInt('max-turns', values['max-turns'])),
    ...defined('maxTotalTokens', positiveInt('max-total-tokens', values['max-total-tokens'])),
    ...defined('maxCostUsd', positiveNumber('max-cost-usd', values['max-cost-usd'])),
    ...defined('maxRepeatedToolCalls', positiveInt('max-repeated-tool-calls', values['max-repeated-tool-calls'])),
    ...defined('approvalTimeoutSeconds', wholeNumber('approval-timeout', values['approval-timeout'])),
    ...defined('awaitMessagesSeconds', positiveInt('await-messages', values['await-messages'])),
    ...defined('toolTimeoutSeconds', positiveInt('tool-timeout', values['tool-timeout'])),
    ...defined('maxToolCallsPerReply', positiveInt('max-tool-calls', values['max-tool-calls'])),
    ...defined('workspaceFailoverSeconds', positiveInt('workspace-failover', values['workspace-failover'])),
    ...defined('compaction', jsonObject('compaction', values.compaction)),
    ...defined('tools', toolNames(values.tools)),
    ...defined('delegation', delegationOf(values)),
  };
}

function toolNames(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new UsageError(`--tools: expected tool names separated by commas, got '${value}'`);
  return names;
}

function delegationOf(values: SessionFlags): Record<string, unknown> | undefined {
  const settings = jsonObject('delegation', values.delegation);
  if (!values['no-delegate']) return settings;
  return { ...settings, enabled: false };
}

function jsonObject(flag: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below with the flag's name
  }
  throw new UsageError(`--${flag}: expected a JSON object, got '${value}'`);
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}
