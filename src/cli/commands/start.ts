/** `agentd start`: validate a session's input, start it, and optionally follow it to the end. */
import { resolveStart, type SessionRequest } from '../../session/resolve';
import { ExitCode, UsageError, type Command } from '../command';
import { configWith, CONNECTION_HELP, CONNECTION_OPTIONS, parse, positiveInt, positiveNumber, requirePositional, wholeNumber } from '../args';
import { renderResult } from '../render';
import { sessionIdProblem } from '../../session/sessionId';

const HELP = `usage: agentd start <task> [options]

Starts an agent session (workflow agentSession, task queue agentd) and prints its id.
The input is validated before anything is sent; a bad field is named and nothing starts.

  --model NAME             model at the worker's endpoint (env AGENTD_MODEL; agentd-sim without an endpoint)
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
  --id ID                  session id (default agent-<random>): letters, digits, '.', '_', '-', starting
                           with a letter or digit, at most 128 characters; an id already used is refused
  --replace-closed         with --id: take over the id of a session that has ended (its transcript is
                           kept as <id>@<run>); a running session is never replaced
  --follow                 print progress until the session ends; exit 0 when it completes, 1 when it fails
  --json                   print {"sessionId": …} (with --follow: the result) as JSON
${CONNECTION_HELP}`;

export const startCommand: Command = {
  name: 'start',
  summary: 'start an agent session on a task',
  help: HELP,
  async run(argv) {
    const { values, positionals } = parse(argv, {
      ...CONNECTION_OPTIONS,
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
      id: { type: 'string' },
      'replace-closed': { type: 'boolean' },
      follow: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (values.id !== undefined) {
      const problem = sessionIdProblem(values.id);
      if (problem !== undefined) throw new UsageError(`--id: ${problem}`);
    }
    if (values['replace-closed'] && values.id === undefined) throw new UsageError('--replace-closed: needs --id (a new random id is never taken)');
    const config = configWith(values);
    const model = values.model ?? config.defaultModel;
    if (!model) throw new UsageError('--model: no model given and AGENTD_MODEL is not set');
    const request: SessionRequest = {
      task: requirePositional(positionals, 0, 'task'),
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
    };
    // Checked and resolved in full before connecting: a bad field exits 2 even with no server.
    const ids = values.id !== undefined ? { sessionId: values.id } : {};
    const input = resolveStart(request, { ...ids, maxUserTextBytes: config.maxUserTextBytes, prices: config.prices });
    const { connectClient, SessionClient } = await import('../../client/sessionClient.js');
    const sessions = new SessionClient(await connectClient(config), config.prices, { maxUserTextBytes: config.maxUserTextBytes });
    const handle = await sessions.start(input, { ...ids, ...(values['replace-closed'] ? { replaceClosed: true } : {}) });
    if (!values.follow) {
      console.log(values.json ? JSON.stringify({ sessionId: handle.workflowId }) : handle.workflowId);
      return ExitCode.ok;
    }
    const print = values.json ? () => undefined : (line: string) => console.error(line);
    const { followSession } = await import('../follow.js');
    const result = await followSession(sessions, handle.workflowId, print);
    console.log(values.json ? JSON.stringify(result) : renderResult(result));
    return ExitCode.ok;
  },
};

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
