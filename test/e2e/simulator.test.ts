/** The model simulator, driven over HTTP through the real openai client, as agentd drives it. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import OpenAI, { APIConnectionTimeoutError, BadRequestError, InternalServerError, NotFoundError, RateLimitError } from 'openai';
import type { ChatMessage, ToolSpec } from '../../src/model/messages';
import { SUMMARIZE_INSTRUCTION_HEAD, SUMMARY_SECTIONS, summaryMessageHeader, summaryRangeLine } from '../../src/model/summaryFormat';
import { countMessageTokens, countPromptTokens } from '../../src/model/tokens';
import { UsageError } from '../../src/cli/command';
import { parseSimArgs } from '../../src/cli/commands/sim';
import { faultsAt, resolveSimulatorOptions } from '../../src/simulator/options';
import type { RunningSimulator } from '../../src/simulator/server';
import { stepOfCallId } from '../../src/simulator/script';
import { REFUSAL_TEXT } from '../../src/simulator/summarize';
import { MODEL, SYSTEM, withSim } from '../helpers/withSimulator';

function spec(name: string, description: string, properties: Record<string, unknown>): ToolSpec {
  return {
    type: 'function',
    function: { name, description, parameters: { type: 'object', properties, required: Object.keys(properties) } },
  };
}
const TOOLS: ToolSpec[] = [
  spec('list_files', 'List files under a path.', { path: { type: 'string' } }),
  spec('read_file', 'Read a file.', { path: { type: 'string' } }),
  spec('write_file', 'Write a file.', { path: { type: 'string' }, content: { type: 'string' } }),
  spec('run_command', 'Run a shell command.', { command: { type: 'string' } }),
  spec('finish', 'Declare the task done.', { answer: { type: 'string' } }),
];

interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** One chat completion as agentd makes it: the reply as a ChatMessage, its tool calls parsed. */
async function complete(client: OpenAI, messages: readonly ChatMessage[]) {
  const completion = await client.chat.completions.create({ model: MODEL, messages: [...messages], tools: TOOLS });
  const choice = completion.choices[0];
  assert.ok(choice, 'a choice');
  const toolCalls = (choice.message.tool_calls ?? []).map((call) => {
    assert.equal(call.type, 'function');
    if (call.type !== 'function') throw new Error('unreachable');
    return { id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: call.function.arguments } };
  });
  const reply: ChatMessage =
    toolCalls.length > 0
      ? { role: 'assistant', content: choice.message.content, tool_calls: toolCalls }
      : { role: 'assistant', content: choice.message.content };
  const calls: Call[] = toolCalls.map((call) => ({
    id: call.id,
    name: call.function.name,
    args: JSON.parse(call.function.arguments) as Record<string, unknown>,
  }));
  return { completion, choice, reply, calls };
}

function fakeResult(call: Call): ChatMessage {
  return { role: 'tool', tool_call_id: call.id, content: `ok: ${call.name} done` };
}

/** Plays the agent until the model stops calling tools or calls finish; returns every call made. */
async function runTurn(client: OpenAI, messages: ChatMessage[], limit = 50): Promise<Call[]> {
  const made: Call[] = [];
  for (let request = 0; request < limit; request += 1) {
    const sent = [...messages];
    const { completion, reply, calls } = await complete(client, sent);
    assert.equal(completion.usage?.prompt_tokens, countPromptTokens(sent, TOOLS), `prompt tokens of request ${request}`);
    messages.push(reply);
    if (calls.length === 0) return made;
    assert.equal(calls.length, 1, 'one tool call per step');
    for (const call of calls) {
      made.push(call);
      messages.push(fakeResult(call));
    }
    if (calls.some((call) => call.name === 'finish')) return made;
  }
  throw new Error(`no end after ${limit} requests`);
}

async function rawPost(sim: RunningSimulator, body: unknown): Promise<{ status: number; text: string; json: unknown }> {
  const response = await fetch(`${sim.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

function errorOf(json: unknown): { message: string; type: string; param: string | null; code: string | null } {
  assert.ok(typeof json === 'object' && json !== null && 'error' in json, 'an OpenAI error body');
  return (json as { error: { message: string; type: string; param: string | null; code: string | null } }).error;
}

/** The instruction the summarize activity ends its request with. */
const INSTRUCTION: ChatMessage = {
  role: 'user',
  content: `${SUMMARIZE_INSTRUCTION_HEAD}\nUse the sections ${SUMMARY_SECTIONS.join(', ')}.`,
};

/** A summary as compaction places it in the live context: the header line, then the model's text. */
function summaryMessage(text: string): ChatMessage {
  return { role: 'user', content: `${summaryMessageHeader(12, 2, 13)}\n\n${text}` };
}

/** Plays `steps` steps of the script from `messages` on, tool results faked; returns the grown list. */
async function playSteps(client: OpenAI, messages: readonly ChatMessage[], steps: number): Promise<ChatMessage[]> {
  const grown = [...messages];
  for (let step = 0; step < steps; step += 1) {
    const { reply, calls } = await complete(client, grown);
    assert.equal(calls.length, 1, 'one tool call per step');
    grown.push(reply, ...calls.map(fakeResult));
  }
  return grown;
}

/** A summarization request; the summary is the reply's text. */
async function summarize(client: OpenAI, messages: readonly ChatMessage[]) {
  const { completion, choice, calls } = await complete(client, [...messages, INSTRUCTION]);
  assert.equal(choice.finish_reason, 'stop');
  assert.deepEqual(calls, [], 'a summary calls no tools');
  return { completion, text: String(choice.message.content) };
}

/**
 * A summarization request as agentd sends it now: the messages, then an instruction naming the
 * range to summarize (1-based, when given), with max_tokens (when given). Any finish reason.
 */
async function summarizeRequest(client: OpenAI, messages: readonly ChatMessage[], options: { range?: { first: number; last: number }; maxTokens?: number } = {}) {
  const rangeLine = options.range === undefined ? [] : [summaryRangeLine({ ...options.range, total: messages.length })];
  const instruction: ChatMessage = { role: 'user', content: [SUMMARIZE_INSTRUCTION_HEAD, ...rangeLine, `Use the sections ${SUMMARY_SECTIONS.join(', ')}.`].join('\n') };
  const completion = await client.chat.completions.create({
    model: MODEL,
    messages: [...messages, instruction],
    tools: TOOLS,
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
  });
  const choice = completion.choices[0];
  assert.ok(choice, 'a choice');
  assert.equal(choice.message.tool_calls, undefined, 'a summary calls no tools');
  return { completion, finishReason: choice.finish_reason, text: choice.message.content ?? '' };
}

/** Tokens of messages first..last (1-based), as the simulator counts them. */
function tokensOf(messages: readonly ChatMessage[], first = 1, last = messages.length): number {
  return messages.slice(first - 1, last).reduce((sum, message) => sum + countMessageTokens(message), 0);
}

/** The `## ` headings of a text, in order. */
function headings(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('## ')).map((line) => line.slice(3));
}

/** The lines under one `## ` heading. */
function section(text: string, name: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(`## ${name}`);
  assert.ok(start >= 0, `a ## ${name} section`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => line.startsWith('## '));
  return (end < 0 ? rest : rest.slice(0, end)).filter((line) => line !== '');
}

/** Id of the newest tool call in a history. */
function lastCallId(history: readonly ChatMessage[]): string {
  return history.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []) : [])).at(-1)?.id ?? '';
}

/** Paths of the write_file calls in a history, in order. */
function writtenPaths(history: readonly ChatMessage[]): string[] {
  return history.flatMap((message) =>
    message.role === 'assistant'
      ? (message.tool_calls ?? [])
          .filter((call) => call.function.name === 'write_file')
          .map((call) => String((JSON.parse(call.function.arguments) as { path: unknown }).path))
      : [],
  );
}

describe('model simulator', () => {
  it('runs a whole [sim steps=6] task turn and ends with finish', async () => {
    await withSim({}, async (sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Tidy the repository. [sim steps=6]' }];
      const calls = await runTurn(client, messages);
      assert.deepEqual(
        calls.map((call) => call.name),
        ['list_files', 'write_file', 'run_command', 'read_file', 'list_files', 'write_file', 'finish'],
      );
      assert.deepEqual(calls.map((call) => stepOfCallId(call.id)), [1, 2, 3, 4, 5, 6, 7]);
      assert.deepEqual(calls[0]?.args, { path: '.' });
      const written = calls[1]?.args['path'];
      assert.match(String(written), /^notes\/step-[0-9a-f]{8}-2\.md$/);
      assert.ok(String(calls[1]?.args['content']).length >= 200, 'notes of a few hundred chars');
      assert.equal(calls[3]?.args['path'], written, 'read_file reads the notes written two steps earlier');
      const answer = String(calls[6]?.args['answer']);
      assert.match(answer, /6 steps/);
      assert.ok(answer.includes(String(written)), 'the answer names the files written');
      const stats = sim.stats();
      assert.equal(stats.requests, 7);
      assert.equal(stats.recent.length, 7);
      assert.equal(stats.recent[6]?.lastRole, 'tool');
      assert.equal(stats.maxPromptTokens, Math.max(...stats.recent.map((sample) => sample.promptTokens)));
    });
  });

  it('makes the [sim call …] lines first, in order, then the usual cycle, then finish', async () => {
    await withSim({}, async (_sim, client) => {
      const task = [
        'Probe the tools. [sim steps=4]',
        '[sim call read_file {"path":"../outside.txt"}]',
        '[sim call run_command {"command":"echo [1,2]"}]',
      ].join('\n');
      const calls = await runTurn(client, [SYSTEM, { role: 'user', content: task }]);
      assert.deepEqual(
        calls.map((call) => call.name),
        ['read_file', 'run_command', 'list_files', 'write_file', 'finish'],
      );
      assert.deepEqual(calls[0]?.args, { path: '../outside.txt' });
      assert.deepEqual(calls[1]?.args, { command: 'echo [1,2]' }, 'brackets inside the JSON arguments survive');
      assert.deepEqual(calls.map((call) => stepOfCallId(call.id)), [1, 2, 3, 4, 5]);
      assert.doesNotMatch(String(calls[4]?.args['answer']), /sim call/);
    });
  });

  it('takes as many steps as scripted calls when no steps= is given', async () => {
    await withSim({ defaultSteps: 9 }, async (_sim, client) => {
      const task = 'Echo once.\n[sim call echo {"message":"hi"}]\n[sim call nope not-json]';
      const calls = await runTurn(client, [SYSTEM, { role: 'user', content: task }]);
      assert.deepEqual(calls.map((call) => call.name), ['echo', 'finish'], 'a line without JSON arguments is ignored');
    });
  });

  it('uses defaultSteps when the task has no directive', async () => {
    await withSim({ defaultSteps: 3 }, async (_sim, client) => {
      const calls = await runTurn(client, [SYSTEM, { role: 'user', content: 'Fix the build.' }]);
      assert.deepEqual(calls.map((call) => call.name), ['list_files', 'write_file', 'run_command', 'finish']);
    });
  });

  it('rejects a prompt over the context window with context_length_exceeded', async () => {
    await withSim({ contextWindow: 300 }, async (sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'word '.repeat(400) }];
      const tokens = countPromptTokens(messages, TOOLS);
      await assert.rejects(complete(client, messages), (error: unknown) => {
        assert.ok(error instanceof BadRequestError, 'a BadRequestError');
        assert.equal(error.status, 400);
        assert.equal(error.code, 'context_length_exceeded');
        assert.match(
          error.message,
          new RegExp(`maximum context length is 300 tokens\\. However, your messages resulted in ${tokens} tokens\\.`),
        );
        return true;
      });
      assert.equal(sim.stats().rejected.context_length_exceeded, 1);
      // Just under the window is still served.
      const small: ChatMessage[] = [SYSTEM, { role: 'user', content: 'short task' }];
      const { completion } = await complete(client, small);
      assert.equal(completion.usage?.prompt_tokens, countPromptTokens(small, TOOLS));
    });
  });

  it('shows each answered request to the observe hook, rejected ones not, summaries flagged', async () => {
    const seen: Array<{ index: number; messages: readonly ChatMessage[]; promptTokens: number; summarizing: boolean }> = [];
    await withSim({ contextWindow: 300, observe: (request) => seen.push(request) }, async (_sim, client) => {
      const small: ChatMessage[] = [SYSTEM, { role: 'user', content: 'short task' }];
      await assert.rejects(complete(client, [SYSTEM, { role: 'user', content: 'word '.repeat(400) }]));
      await complete(client, small);
      await complete(client, [...small, { role: 'user', content: SUMMARIZE_INSTRUCTION_HEAD }]);
      assert.deepEqual(
        seen.map(({ index, messages, promptTokens, summarizing }) => ({ index, messages, promptTokens, summarizing })),
        [
          { index: 1, messages: small, promptTokens: countPromptTokens(small, TOOLS), summarizing: false },
          {
            index: 2,
            messages: [...small, { role: 'user', content: SUMMARIZE_INSTRUCTION_HEAD }],
            promptTokens: countPromptTokens([...small, { role: 'user', content: SUMMARIZE_INSTRUCTION_HEAD }], TOOLS),
            summarizing: true,
          },
        ],
      );
    });
  });

  it('rejects a tool result whose call was never made (orphan)', async () => {
    await withSim({}, async (sim, client) => {
      const messages: ChatMessage[] = [
        SYSTEM,
        { role: 'user', content: 'task' },
        { role: 'tool', tool_call_id: 'call_9_0_deadbeef', content: 'stray output' },
      ];
      await assert.rejects(complete(client, messages), (error: unknown) => {
        assert.ok(error instanceof BadRequestError);
        assert.equal(error.param, 'messages');
        assert.equal(error.type, 'invalid_request_error');
        assert.match(error.message, /role 'tool' must be a response/);
        return true;
      });
      assert.equal(sim.stats().rejected.orphan_tool_result, 1);
    });
  });

  it('rejects an assistant tool call that no tool message answers', async () => {
    await withSim({}, async (sim, client) => {
      const first = await complete(client, [SYSTEM, { role: 'user', content: 'task' }]);
      const callId = first.calls[0]?.id ?? '';
      const unanswered: ChatMessage[] = [SYSTEM, { role: 'user', content: 'task' }, first.reply, { role: 'user', content: 'and?' }];
      await assert.rejects(complete(client, unanswered), (error: unknown) => {
        assert.ok(error instanceof BadRequestError);
        assert.ok(error.message.includes(callId), 'names the unanswered id');
        return true;
      });
      // Ending on the call itself is the same mistake.
      await assert.rejects(complete(client, [SYSTEM, { role: 'user', content: 'task' }, first.reply]), BadRequestError);
      assert.equal(sim.stats().rejected.unanswered_tool_call, 2);
    });
  });

  it('rejects bodies that are not valid chat requests, naming the field', async () => {
    await withSim({}, async (sim) => {
      const badRole = await rawPost(sim, { model: MODEL, messages: [{ role: 'user', content: 'x' }, { role: 'robot', content: 'y' }] });
      assert.equal(badRole.status, 400);
      assert.equal(errorOf(badRole.json).param, 'messages[1].role');
      const missing = await rawPost(sim, { model: MODEL, messages: [{ role: 'tool', content: 'x' }] });
      assert.equal(missing.status, 400);
      assert.match(errorOf(missing.json).message, /Missing required parameter: 'messages\[0\]\.tool_call_id'/);
      const unknown = await rawPost(sim, { model: MODEL, messages: [{ role: 'user', content: 'x' }], frobnicate: true });
      assert.match(errorOf(unknown.json).message, /Unrecognized request argument supplied: frobnicate/);
      const streaming = await rawPost(sim, { model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true });
      assert.equal(errorOf(streaming.json).param, 'stream');
      const notJson = await rawPost(sim, '{"model":');
      assert.equal(notJson.status, 400);
      assert.equal(sim.stats().rejected.bad_request, 5);
    });
  });

  it('answers an unknown model with 404 model_not_found', async () => {
    await withSim({}, async (_sim, client) => {
      await assert.rejects(
        client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
        (error: unknown) => error instanceof NotFoundError && error.code === 'model_not_found',
      );
    });
  });

  it('is deterministic: the same request gets byte-identical answers', async () => {
    await withSim({}, async (sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Audit the logs. [sim steps=5]' }];
      const first = await complete(client, messages);
      messages.push(first.reply, ...first.calls.map(fakeResult));
      const a = await complete(client, messages);
      const b = await complete(client, messages);
      assert.deepEqual(a.calls, b.calls);
      assert.equal(a.completion.id, b.completion.id);
      assert.equal(a.calls[0]?.name, 'write_file');
      const body = { model: MODEL, messages, tools: TOOLS };
      const rawA = await rawPost(sim, body);
      const rawB = await rawPost(sim, body);
      assert.equal(rawA.status, 200);
      assert.equal(rawA.text, rawB.text);
      // A different task gets different ids: the hash follows the turn's user message.
      const other = await complete(client, [SYSTEM, { role: 'user', content: 'Audit the metrics. [sim steps=5]' }]);
      assert.notEqual(other.calls[0]?.id, first.calls[0]?.id);
    });
  });

  it('gives a follow-up message followUpSteps steps, then a plain-text answer', async () => {
    await withSim({ followUpSteps: 2 }, async (_sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Set things up. [sim steps=1]' }];
      const taskCalls = await runTurn(client, messages);
      assert.deepEqual(taskCalls.map((call) => call.name), ['list_files', 'finish']);
      messages.push({ role: 'user', content: 'Please summarize what changed in the config' });
      const followCalls = await runTurn(client, messages);
      assert.deepEqual(followCalls.map((call) => call.name), ['list_files', 'write_file']);
      const last = messages[messages.length - 1];
      assert.equal(last?.role, 'assistant');
      assert.ok(last?.role === 'assistant' && last.tool_calls === undefined, 'no tool calls in the answer');
      assert.match(String(last.content), /Please summarize what changed/);
      const { choice } = await complete(client, messages.slice(0, -1));
      assert.equal(choice.finish_reason, 'stop');
    });
  });

  it('continues at the right step when older messages were trimmed away', async () => {
    await withSim({}, async (_sim, client) => {
      const task: ChatMessage = { role: 'user', content: 'Long job. [sim steps=10]' };
      const messages: ChatMessage[] = [SYSTEM, task];
      for (let step = 1; step <= 5; step += 1) {
        const { reply, calls } = await complete(client, messages);
        messages.push(reply, ...calls.map(fakeResult));
      }
      const full = await complete(client, messages);
      const trimmed = [SYSTEM, task, ...messages.slice(-2)];
      assert.equal(trimmed.length, 4);
      const after = await complete(client, trimmed);
      assert.equal(stepOfCallId(after.calls[0]?.id ?? ''), 6);
      assert.equal(after.calls[0]?.name, 'write_file');
      assert.deepEqual(after.calls, full.calls, 'same step as with the whole history');
    });
  });

  it('plants the marker in run_command, whose output has the size asked for', async () => {
    await withSim({ marker: 'SIM-MARK-42' }, async (_sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Check it. [sim steps=3 output=3000-3500]' }];
      const calls = await runTurn(client, messages);
      const run = calls.find((call) => call.name === 'run_command');
      const command = String(run?.args['command']);
      assert.ok(command.includes('SIM-MARK-42'), command);
      const output = execFileSync('sh', ['-c', command], { encoding: 'utf8' });
      assert.ok(output.startsWith('SIM-MARK-42\n'), 'marker is the first output line');
      assert.ok(output.length >= 3000 && output.length <= 3500 + 30, `output of ${output.length} bytes`);
    });
  });

  it('injects a 429 with Retry-After and counts it', async () => {
    await withSim({ faultPlan: faultsAt({ 0: { kind: 'status', status: 429, retryAfterSeconds: 7 } }) }, async (sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'task' }];
      await assert.rejects(complete(client, messages), (error: unknown) => {
        assert.ok(error instanceof RateLimitError, 'a RateLimitError');
        assert.equal(error.status, 429);
        assert.equal(error.headers.get('retry-after'), '7');
        return true;
      });
      const { calls } = await complete(client, messages);
      assert.equal(calls[0]?.name, 'list_files', 'request 1 is served normally');
      assert.equal(sim.stats().rejected.injected, 1);
      assert.equal(sim.stats().requests, 2);
    });
  });

  it('serves a retried request after a 500 with the same answer', async () => {
    const plan = faultsAt({ 0: { kind: 'status', status: 500 } });
    await withSim({ faultPlan: plan }, async (sim) => {
      const retrying = new OpenAI({ apiKey: 'sim', baseURL: sim.baseURL, maxRetries: 1 });
      const messages: ChatMessage[] = [SYSTEM, { role: 'user', content: 'task' }];
      const retried = await complete(retrying, messages);
      const again = await complete(retrying, messages);
      assert.deepEqual(retried.calls, again.calls);
      assert.equal(sim.stats().requests, 3);
    });
  });

  it('injects a malformed body and a hang', async () => {
    const plan = faultsAt({ 0: { kind: 'malformed' }, 1: { kind: 'hang' } });
    await withSim({ faultPlan: plan }, async (sim) => {
      const malformed = await rawPost(sim, { model: MODEL, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(malformed.status, 200);
      assert.equal(malformed.json, undefined, 'the body is not JSON');
      const impatient = new OpenAI({ apiKey: 'sim', baseURL: sim.baseURL, maxRetries: 0, timeout: 300 });
      await assert.rejects(complete(impatient, [{ role: 'user', content: 'x' }]), APIConnectionTimeoutError);
      assert.equal(sim.stats().rejected.injected, 2);
    });
  });

  it('delays answers by latencyMs', async () => {
    await withSim({ latencyMs: 150 }, async (_sim, client) => {
      const started = performance.now();
      await complete(client, [{ role: 'user', content: 'x' }]);
      assert.ok(performance.now() - started >= 140, 'answer came after the latency');
    });
  });

  it('serves /v1/models, /sim/stats and /sim/reset-stats', async () => {
    await withSim({ model: 'sim-model-x' }, async (sim) => {
      const client = new OpenAI({ apiKey: 'sim', baseURL: sim.baseURL, maxRetries: 0 });
      const models = await client.models.list();
      assert.deepEqual(models.data.map((model) => model.id), ['sim-model-x']);
      await rawPost(sim, { model: 'sim-model-x', messages: [{ role: 'user', content: 'x' }] });
      await rawPost(sim, { model: 'sim-model-x', messages: [] });
      const root = sim.baseURL.replace(/\/v1$/, '');
      const stats = (await (await fetch(`${root}/sim/stats`)).json()) as { requests: number; rejected: { bad_request: number } };
      assert.equal(stats.requests, 2);
      assert.equal(stats.rejected.bad_request, 1);
      const reset = await fetch(`${root}/sim/reset-stats`, { method: 'POST' });
      assert.equal(reset.status, 200);
      assert.equal(sim.stats().requests, 0);
      assert.equal(sim.stats().recent.length, 0);
    });
  });

  it('counts every rejection under its reason', async () => {
    await withSim({ contextWindow: 500 }, async (sim) => {
      const user = { role: 'user', content: 'x' };
      await rawPost(sim, { model: MODEL, messages: [{ role: 'user', content: 'word '.repeat(600) }] });
      await rawPost(sim, { model: MODEL, messages: [user, { role: 'tool', tool_call_id: 'nope', content: 'x' }] });
      await rawPost(sim, {
        model: MODEL,
        messages: [user, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }],
      });
      await rawPost(sim, { model: MODEL });
      await rawPost(sim, { model: MODEL, messages: [user] });
      assert.deepEqual(sim.stats().rejected, {
        context_length_exceeded: 1,
        orphan_tool_result: 1,
        unanswered_tool_call: 1,
        bad_request: 1,
        injected: 0,
      });
      assert.equal(sim.stats().requests, 5);
      assert.equal(sim.stats().recent.length, 1, 'only the answered request is sampled');
    });
  });
});

describe('model simulator and compaction', () => {
  const TASK: ChatMessage = {
    role: 'user',
    content: 'Refactor the parser module and keep the tests green.\nCONSTRAINT: never edit files under vendor/ [sim steps=30]',
  };

  it('continues a compacted context [system, task, summary, tail] at the next step with the task budget', async () => {
    await withSim({ followUpSteps: 2 }, async (_sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK], 17);
      const full = await complete(client, history);
      const compacted = [SYSTEM, TASK, summaryMessage('## Goal\nRefactor the parser. [sim steps=1]'), ...history.slice(-2)];
      const after = await complete(client, compacted);
      assert.equal(stepOfCallId(after.calls[0]?.id ?? ''), 18);
      assert.match(String(after.reply.content), /^Step 18 of 30:/, "the task's budget, not the summary's or followUpSteps");
      assert.deepEqual(after.calls, full.calls, 'same step as with the whole history');
    });
  });

  it('picks the step up from the summary when the tail holds no step of the turn', async () => {
    await withSim({}, async (_sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK], 9);
      const { text } = await summarize(client, history);
      const after = await complete(client, [SYSTEM, TASK, summaryMessage(text)]);
      assert.equal(stepOfCallId(after.calls[0]?.id ?? ''), 10);
      assert.match(String(after.reply.content), /^Step 10 of 30:/);
    });
  });

  it('answers a summarization request with every section, the files and the CONSTRAINT lines, deterministically', async () => {
    await withSim({}, async (sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK], 9);
      const first = await summarize(client, history);
      const again = await summarize(client, history);
      assert.equal(first.text, again.text);
      assert.equal(first.completion.id, again.completion.id);
      assert.deepEqual(headings(first.text), [...SUMMARY_SECTIONS]);
      assert.deepEqual(section(first.text, 'Goal'), ['Refactor the parser module and keep the tests green.']);
      assert.deepEqual(section(first.text, 'Constraints'), ['- CONSTRAINT: never edit files under vendor/']);
      assert.deepEqual(section(first.text, 'Progress'), ['- Last step: 9', '- Highest step: 9', '- Tool calls: 9']);
      const written = history.flatMap((message) =>
        message.role === 'assistant' ? (message.tool_calls ?? []).filter((call) => call.function.name === 'write_file') : [],
      );
      const paths = written.map((call) => String((JSON.parse(call.function.arguments) as { path: unknown }).path));
      assert.equal(paths.length, 2);
      // read_file re-reads the same notes: each path is listed once.
      assert.deepEqual(section(first.text, 'Files touched'), paths.map((path) => `- ${path}`));
      assert.deepEqual(section(first.text, 'Next steps'), ['- Continue with step 10; re-read the newest notes file first.']);
      const summarized = history.reduce((sum, message) => sum + countMessageTokens(message), 0);
      const summaryTokens = first.completion.usage?.completion_tokens ?? Infinity;
      assert.ok(summaryTokens < summarized / 4 && summaryTokens <= 600, `${summaryTokens} tokens for ${summarized}`);
      assert.equal(sim.stats().summaryRequests, 2);
      assert.equal(sim.stats().requests, 11);
    });
  });

  it('merges a previous summary: its files and constraints are carried, progress adds up', async () => {
    await withSim({}, async (_sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK], 9);
      // Steps 1-8 are summarized; step 9 stays verbatim in the tail.
      const previous = await summarize(client, history.slice(0, -2));
      assert.equal(section(previous.text, 'Files touched').length, 2);
      // A constraint only the previous summary knows (stated in a message it replaced), in its own words.
      const previousText = previous.text.replace('## Constraints\n', '## Constraints\n- Ask before deleting any file.\n');
      assert.notEqual(previousText, previous.text);
      // The live context after that compaction, then more work and a new constraint from the user.
      const compacted = [SYSTEM, TASK, summaryMessage(previousText), ...history.slice(-2)];
      const later = await playSteps(client, compacted, 3);
      const withNote = [...later, { role: 'user' as const, content: 'Note:\nCONSTRAINT: keep the public API stable' }];
      const merged = await summarize(client, withNote);
      assert.deepEqual(headings(merged.text), [...SUMMARY_SECTIONS]);
      assert.deepEqual(section(merged.text, 'Constraints'), [
        '- CONSTRAINT: never edit files under vendor/',
        '- Ask before deleting any file.',
        '- CONSTRAINT: keep the public API stable',
      ]);
      // 8 calls in the previous summary, then steps 9-12.
      assert.deepEqual(section(merged.text, 'Progress'), ['- Last step: 12', '- Highest step: 12', '- Tool calls: 12']);
      const files = section(merged.text, 'Files touched');
      for (const line of section(previous.text, 'Files touched')) assert.ok(files.includes(line), `${line} carried`);
      assert.ok(files.some((line) => /notes\/step-[0-9a-f]{8}-10\.md$/.test(line)), 'the newly written notes');
      assert.equal(files.length, 3);
    });
  });

  it("summarizer 'fail' answers 500 to summarization requests only", async () => {
    await withSim({ summarizer: 'fail' }, async (sim, client) => {
      const messages: ChatMessage[] = [SYSTEM, TASK];
      await assert.rejects(complete(client, [...messages, INSTRUCTION]), (error: unknown) => {
        assert.ok(error instanceof InternalServerError, 'an InternalServerError');
        assert.equal(error.status, 500);
        return true;
      });
      const { calls } = await complete(client, messages);
      assert.equal(calls[0]?.name, 'list_files', 'an ordinary request is served');
      assert.equal(sim.stats().rejected.injected, 1);
      assert.equal(sim.stats().summaryRequests, 0);
      assert.equal(sim.stats().summaryFailures, 1);
    });
  });

  for (const behaviour of ['prose', 'headings'] as const) {
    it(`summarizer '${behaviour}' keeps the facts without the asked-for sections, and reads its own summary back`, async () => {
      await withSim({ summarizer: behaviour }, async (_sim, client) => {
        const history = await playSteps(client, [SYSTEM, TASK], 9);
        // Steps 1-8 are summarized; step 9 stays verbatim in the tail.
        const first = await summarize(client, history.slice(0, -2));
        assert.equal((await summarize(client, history.slice(0, -2))).text, first.text, 'deterministic');
        assert.deepEqual(headings(first.text), [], 'none of the asked-for ## sections');
        if (behaviour === 'prose') assert.doesNotMatch(first.text, /^\s*(#|[-*] )/m, 'no heading, no bullet');
        else assert.match(first.text, /^### Objective$/m, 'headings of its own');
        assert.ok(first.text.includes('CONSTRAINT: never edit files under vendor/'), 'the constraint as written');
        for (const path of writtenPaths(history)) assert.ok(first.text.includes(path), `${path} named`);
        const summarized = history.reduce((sum, message) => sum + countMessageTokens(message), 0);
        assert.ok((first.completion.usage?.completion_tokens ?? Infinity) < summarized / 4, 'much shorter than its input');

        // The scripted agent finds where the work stands in it, as it does in a sectioned one.
        const after = await complete(client, [SYSTEM, TASK, summaryMessage(first.text)]);
        assert.equal(stepOfCallId(after.calls[0]?.id ?? ''), 9);

        // A later summary merges it: constraint and files carried, progress adds up.
        const later = await playSteps(client, [SYSTEM, TASK, summaryMessage(first.text), ...history.slice(-2)], 3);
        const withNote = [...later, { role: 'user' as const, content: 'Note:\nCONSTRAINT: keep the public API stable' }];
        const merged = await summarize(client, withNote);
        assert.ok(merged.text.includes('CONSTRAINT: never edit files under vendor/'), 'the old constraint carried');
        assert.ok(merged.text.includes('CONSTRAINT: keep the public API stable'), 'the new constraint');
        for (const path of writtenPaths(history)) assert.ok(merged.text.includes(path), `${path} carried`);
        assert.match(merged.text, /Stopped after step 12 \(highest step 12, 12 tool calls so far\)/);
      });
    });
  }

  it("summarizer 'lossy' keeps one paragraph: the goal and the step, no constraint, no file", async () => {
    await withSim({ summarizer: 'lossy' }, async (_sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK], 9);
      const { text } = await summarize(client, history);
      assert.doesNotMatch(text, /\n/, 'one paragraph');
      assert.match(text, /Refactor the parser module/);
      assert.doesNotMatch(text, /CONSTRAINT/);
      for (const path of writtenPaths(history)) assert.ok(!text.includes(path), `${path} lost`);
      const after = await complete(client, [SYSTEM, TASK, summaryMessage(text)]);
      assert.equal(stepOfCallId(after.calls[0]?.id ?? ''), 10, 'the step survives');
    });
  });

  it("summarizer 'long' answers a summary longer than its input, 'refusal' a refusal", async () => {
    const history: ChatMessage[] = [SYSTEM, TASK];
    await withSim({ summarizer: 'long' }, async (sim, client) => {
      history.push(...(await playSteps(client, history, 5)).slice(2));
      const { completion } = await summarize(client, history);
      const input = history.reduce((sum, message) => sum + countMessageTokens(message), 0);
      assert.ok((completion.usage?.completion_tokens ?? 0) > input, `${completion.usage?.completion_tokens} vs ${input}`);
      assert.equal(sim.stats().summaryRequests, 1);
    });
    await withSim({ summarizer: 'refusal' }, async (sim, client) => {
      const { text } = await summarize(client, history);
      assert.equal(text, REFUSAL_TEXT);
      assert.equal(sim.stats().summaryRequests, 1, 'a refusal is an answered request');
    });
  });

  it('a [sim summarizer=NAME] directive in the task picks the behaviour for its session', async () => {
    const task: ChatMessage = { role: 'user', content: String(TASK.content).replace('[sim steps=30]', '[sim steps=30 summarizer=refusal]') };
    await withSim({ summarizer: 'sectioned' }, async (_sim, client) => {
      const history = await playSteps(client, [SYSTEM, task], 3);
      assert.equal((await summarize(client, history)).text, REFUSAL_TEXT);
      const other = await playSteps(client, [SYSTEM, TASK], 3);
      assert.deepEqual(headings((await summarize(client, other)).text), [...SUMMARY_SECTIONS], 'other sessions keep the instance behaviour');
    });
  });

  it('takes the behaviour from AGENTD_SIM_SUMMARIZER when unset, and names a bad value', () => {
    assert.equal(resolveSimulatorOptions({}, {}).summarizer, 'sectioned');
    assert.equal(resolveSimulatorOptions({}, { AGENTD_SIM_SUMMARIZER: 'lossy' }).summarizer, 'lossy');
    assert.equal(resolveSimulatorOptions({ summarizer: 'prose' }, { AGENTD_SIM_SUMMARIZER: 'lossy' }).summarizer, 'prose');
    assert.throws(() => resolveSimulatorOptions({}, { AGENTD_SIM_SUMMARIZER: 'sometimes' }), /AGENTD_SIM_SUMMARIZER: must be one of sectioned, prose/);
    assert.throws(() => resolveSimulatorOptions({ summarizer: 'sometimes' as 'fail' }, {}), /summarizer/);
  });

  it('agentd sim --summarizer NAME sets the behaviour; a bad name is a usage error naming the flag', () => {
    const parsed = parseSimArgs(['--summarizer', 'headings']);
    assert.ok(!parsed.help);
    assert.equal(parsed.options.summarizer, 'headings');
    assert.throws(() => parseSimArgs(['--summarizer', 'sometimes']), (error: unknown) => error instanceof UsageError && /^--summarizer:/.test(error.message));
  });

  /** A user message opening a turn of `steps` steps, with these CONSTRAINT lines. */
  function userTurn(constraints: readonly string[], steps = 4): ChatMessage {
    return { role: 'user', content: [...constraints.map((line) => `CONSTRAINT: ${line}`), `Go on. [sim steps=${steps}]`].join('\n') };
  }

  it('summarizes only the range the instruction names, with the pinned task for the goal', async () => {
    await withSim({}, async (_sim, client) => {
      let messages = [SYSTEM, TASK, userTurn(['stated before the range'])];
      messages = await playSteps(client, messages, 3);
      const first = messages.length + 1;
      messages = await playSteps(client, [...messages, userTurn(['stated inside the range'])], 4);
      const last = messages.length;
      messages = await playSteps(client, [...messages, userTurn(['stated after the range'])], 4);
      const inRange = messages.slice(first - 1, last);

      const { text } = await summarizeRequest(client, messages, { range: { first, last } });
      assert.deepEqual(section(text, 'Goal'), ['Refactor the parser module and keep the tests green.'], 'the goal from the pinned task');
      assert.deepEqual(section(text, 'Constraints'), ['- CONSTRAINT: stated inside the range'], 'only what the range states');
      assert.deepEqual(section(text, 'Files touched'), writtenPaths(inRange).map((path) => `- ${path}`));
      assert.deepEqual(section(text, 'Progress')[0], `- Last step: ${stepOfCallId(lastCallId(inRange))}`);
      for (const outside of ['before the range', 'after the range', 'vendor/']) assert.ok(!text.includes(outside), `${outside} left out`);
      const writtenAfter = writtenPaths(messages.slice(last));
      assert.ok(writtenAfter.length > 0, 'files written after the range, to be left out');
      for (const path of writtenAfter) assert.ok(!text.includes(path), `${path} (after the range) left out`);

      // Without a range: everything above the instruction, as before.
      const all = await summarizeRequest(client, messages);
      assert.equal(section(all.text, 'Constraints').length, 4);
    });
  });

  it("well-behaved summarizers stop at max_tokens (finish_reason 'length'); 'verbose' writes 60–80% of its region past it", async () => {
    const maxTokens = 64;
    let history: ChatMessage[] = [];
    await withSim({}, async (_sim, client) => {
      history = await playSteps(client, [SYSTEM, TASK, userTurn(['keep the changelog sorted'], 12)], 10);
      for (const behaviour of ['sectioned', 'prose', 'headings', 'halfFacts', 'json'] as const) {
        const task: ChatMessage = { role: 'user', content: String(TASK.content).replace('[sim steps=30]', `[sim steps=30 summarizer=${behaviour}]`) };
        const { completion, finishReason } = await summarizeRequest(client, [SYSTEM, task, ...history.slice(2)], { maxTokens });
        assert.equal(finishReason, 'length', behaviour);
        assert.ok((completion.usage?.completion_tokens ?? Infinity) <= maxTokens, `${behaviour}: ${completion.usage?.completion_tokens}`);
      }
    });
    await withSim({ summarizer: 'verbose' }, async (sim, client) => {
      const range = { first: 3, last: history.length - 2 };
      const region = history.slice(range.first - 1, range.last);
      const regionTokens = tokensOf(history, range.first, range.last);
      const answer = await summarizeRequest(client, history, { range, maxTokens });
      const tokens = answer.completion.usage?.completion_tokens ?? 0;
      console.log(`verbose: ${tokens} tokens for a region of ${regionTokens} (${Math.round((100 * tokens) / regionTokens)}%)`);
      assert.ok(tokens >= 0.6 * regionTokens && tokens <= 0.8 * regionTokens, `${tokens} of ${regionTokens}`);
      assert.ok(tokens > maxTokens, 'past max_tokens');
      assert.equal(answer.finishReason, 'stop');
      assert.equal((await summarizeRequest(client, history, { range, maxTokens })).text, answer.text, 'deterministic');
      assert.deepEqual(headings(answer.text), [...SUMMARY_SECTIONS, 'Excerpts'], 'the sections, then the excerpts');
      assert.ok(answer.text.includes('CONSTRAINT: keep the changelog sorted'), 'the constraint');
      const writtenInRegion = writtenPaths(region);
      assert.ok(writtenInRegion.length > 0, 'files written in the region, to be listed');
      for (const path of writtenInRegion) assert.ok(section(answer.text, 'Files touched').includes(`- ${path}`), `${path} listed`);
      // A bigger region, a bigger answer, in the same proportion.
      const whole = await summarizeRequest(client, history);
      const wholeTokens = whole.completion.usage?.completion_tokens ?? 0;
      assert.ok(wholeTokens >= 0.6 * tokensOf(history) && wholeTokens <= 0.8 * tokensOf(history), `${wholeTokens} of ${tokensOf(history)}`);
      // Its excerpts are quoted: reading it back finds its own Progress, not a quoted one.
      const after = await complete(client, [SYSTEM, TASK, summaryMessage(answer.text), ...history.slice(-2)]);
      assert.equal(stepOfCallId(after.calls[0]?.id ?? ''), (stepOfCallId(lastCallId(history)) ?? 0) + 1);
      assert.equal(sim.stats().summaryRequests, 3);
    });
  });

  it("summarizer 'halfFacts' keeps about half of 20 constraints, each as written, the same ones every time", async () => {
    const planted = Array.from({ length: 20 }, (_, index) => `fact ${index + 1}: keep setting ${String.fromCharCode(97 + index)} at ${index * 7}`);
    await withSim({ summarizer: 'halfFacts' }, async (_sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK, userTurn(planted, 12)], 9);
      const { text } = await summarizeRequest(client, history);
      assert.deepEqual(headings(text), [...SUMMARY_SECTIONS]);
      const constraints = section(text, 'Constraints');
      const kept = planted.filter((fact) => constraints.includes(`- CONSTRAINT: ${fact}`));
      console.log(`halfFacts kept ${kept.length} of ${planted.length} constraints`);
      assert.ok(kept.length >= 6 && kept.length <= 14, `${kept.length} of 20 kept`);
      assert.equal(constraints.filter((line) => line.includes('fact ')).length, kept.length, 'no fact garbled');
      assert.equal((await summarizeRequest(client, history)).text, text, 'deterministic');
      // Merging its own summary forgets nothing more: the same facts meet the same fate.
      const later = await playSteps(client, [SYSTEM, TASK, summaryMessage(text), ...history.slice(-2)], 2);
      const merged = await summarizeRequest(client, later);
      assert.deepEqual(section(merged.text, 'Constraints').filter((line) => line.includes('fact ')), kept.map((fact) => `- CONSTRAINT: ${fact}`));
    });
  });

  it("summarizer 'json' answers one JSON object, no Markdown, that a later summary and the script read back", async () => {
    await withSim({ summarizer: 'json' }, async (_sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK], 9);
      const { text } = await summarizeRequest(client, history.slice(0, -2));
      const parsed = JSON.parse(text) as { goal: string; constraints: string[]; filesTouched: string[]; progress: { lastStep: number } };
      assert.doesNotMatch(text, /^\s*(#|[-*] |```)/m, 'no Markdown');
      assert.match(parsed.goal, /^Refactor the parser module/);
      assert.deepEqual(parsed.constraints, ['CONSTRAINT: never edit files under vendor/']);
      assert.ok(writtenPaths(history.slice(0, -2)).length > 0, 'files written, to be listed');
      assert.deepEqual(parsed.filesTouched, writtenPaths(history.slice(0, -2)));
      assert.equal(parsed.progress.lastStep, 8);

      const after = await complete(client, [SYSTEM, TASK, summaryMessage(text)]);
      assert.equal(stepOfCallId(after.calls[0]?.id ?? ''), 9, 'the script finds the step in it');
      const later = await playSteps(client, [SYSTEM, TASK, summaryMessage(text), ...history.slice(-2)], 3);
      const merged = JSON.parse((await summarizeRequest(client, [...later, userTurn(['keep the public API stable'])])).text) as typeof parsed;
      assert.deepEqual(merged.constraints, ['CONSTRAINT: never edit files under vendor/', 'CONSTRAINT: keep the public API stable']);
      for (const path of writtenPaths(history)) assert.ok(merged.filesTouched.includes(path), `${path} carried`);
      assert.equal(merged.progress.lastStep, 12);
    });
  });

  it("summarizer 'empty' answers an empty string", async () => {
    await withSim({ summarizer: 'empty' }, async (sim, client) => {
      const history = await playSteps(client, [SYSTEM, TASK], 3);
      const { text, finishReason, completion } = await summarizeRequest(client, history, { maxTokens: 500 });
      assert.equal(text, '');
      assert.equal(finishReason, 'stop');
      assert.equal(completion.usage?.completion_tokens, countMessageTokens({ role: 'assistant', content: '' }));
      assert.equal(sim.stats().summaryRequests, 1, 'an empty answer is an answered request');
    });
  });
});
