/**
 * The noisy-neighbour suite (issue 26): an innocent session runs beside each attack on one worker
 * process (root, bubblewrap, the dev server), and its wall time is set against control runs of the
 * same session alone, in the same test. Commands attack through the sandbox (a line without
 * whitespace, megabytes of output, a fork bomb, a session holding all its processes, a named pipe);
 * the model attacks through a hand-written endpoint in front of the simulator (a reply with 10,000
 * tool calls, a 20 MB reply). Each attacking session must get a clear error and end cleanly, and
 * the worker must still exit promptly on SIGTERM while attacks run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SessionResult } from '../../src/session/state';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import type { StoredMessage } from '../../src/store/transcriptStore';
import { requireBubblewrap, skipWithoutBubblewrap } from '../helpers/bubblewrap';
import { forwardToLoopback, readAll, relayAnswer, serveOnLoopback, type LoopbackHttp } from '../../harness/loopbackHttp';
import { startStack, type Stack } from '../../harness/stack';
import { toolResults } from '../../harness/transcriptChecks';
import { startPollingWorker, type WorkerProcess } from '../../harness/workerProcess';

const MINUTE = 60_000;
const sandbox = requireBubblewrap();
/** The innocent session may take at most this many times its control run's time beside an attack. */
const SLOWDOWN_ALLOWED = 1.5;
/** Issue 26: the worker exits within this long of SIGTERM while attacks run (with a 3 s drain grace). */
const SIGTERM_EXIT_MS = 10_000;
const SHUTDOWN_GRACE_SECONDS = 3;

const INNOCENT_TASK = 'Tidy the notes, an ordinary task. [sim steps=8]';
const FANOUT_MARK = '[attack fanout]';
const HUGE_REPLY_MARK = '[attack huge reply]';
/** Half a run without whitespace, half short words: the worst shape for a tokenizer, then the commonest. */
const HUGE_REPLY = `${'A'.repeat(10_000_000)}${' word'.repeat(2_000_000)}`;

function scripted(calls: ReadonlyArray<readonly [string, Record<string, unknown>]>): string {
  return `Attack the worker. [sim steps=${calls.length + 2}]\n${calls.map(([name, args]) => `[sim call ${name} ${JSON.stringify(args)}]`).join('\n')}`;
}

interface Attack {
  readonly name: string;
  readonly task: string;
  /** What the attacking session must have been told, read from its stored transcript. */
  readonly toldClearly: (rows: readonly StoredMessage[]) => boolean;
}

const lastOutput = (rows: readonly StoredMessage[]) => toolResults(rows).map((result) => result.output);
const anyOutput = (pattern: RegExp) => (rows: readonly StoredMessage[]) => lastOutput(rows).some((output) => pattern.test(output));

const ATTACKS: readonly Attack[] = [
  {
    name: 'a 190,000-character line without whitespace',
    task: scripted([['run_command', { command: "head -c 190000 /dev/zero | tr '\\0' A" }]]),
    toldClearly: anyOutput(/^A{1000}[\s\S]*exit code: 0$/),
  },
  {
    name: 'a 5 MB output',
    task: scripted([['run_command', { command: 'head -c 3900000 /dev/urandom | base64' }]]),
    toldClearly: anyOutput(/chars cut from this output[\s\S]*exit code: 0$|exit code: 0$/),
  },
  {
    name: 'a fork bomb',
    task: scripted([['run_command', { command: 'b() { b | b & }; b; sleep 8', timeoutSeconds: 6 }]]),
    toldClearly: anyOutput(/Cannot fork|Resource temporarily unavailable|killed after 6s \(timeout\)/),
  },
  {
    name: 'a session holding all its processes',
    task: scripted([['run_command', { command: "bash -c 'for i in $(seq 1 400); do sleep 30 & done; wait' 2>&1", timeoutSeconds: 6 }]]),
    toldClearly: anyOutput(/fork: (retry: )?Resource temporarily unavailable/),
  },
  {
    name: 'a named pipe',
    task: scripted([
      ['run_command', { command: 'mkfifo p && echo made' }],
      ['read_file', { path: 'p' }],
      ['write_file', { path: 'p', content: 'into the pipe' }],
    ]),
    toldClearly: anyOutput(/^error: path "p" is a named pipe \(FIFO\)/),
  },
  {
    name: 'a reply with 10,000 tool calls',
    task: `Read everything. ${FANOUT_MARK} [sim steps=2]`,
    toldClearly: (rows) => rows.some((row) => row.message.role === 'user' && /error: your last reply declared 10000 tool calls/.test(row.message.content)),
  },
  {
    name: 'a 20 MB model reply',
    task: `Write it all out. ${HUGE_REPLY_MARK} [sim steps=3]`,
    // The reply is stored whole and the session goes on with a view of it, which says how to read the rest.
    toldClearly: (rows) =>
      rows.some((row) => row.message.role === 'assistant' && (row.message.content?.length ?? 0) < 100_000 && /chars cut from this output .*read_output/.test(row.message.content ?? '')),
  },
];

interface SentMessage {
  role: string;
}

/** The hostile first reply a marked task gets, or undefined to let the simulator answer. */
function hostileReply(messages: readonly SentMessage[], body: string): Record<string, unknown> | undefined {
  if (messages.some((message) => message.role === 'assistant')) return undefined;
  if (body.includes(FANOUT_MARK)) {
    const calls = Array.from({ length: 10_000 }, (_, index) => ({
      id: `call_fan_${index}`,
      type: 'function',
      function: { name: 'read_file', arguments: JSON.stringify({ path: `part-${index}.txt` }) },
    }));
    return { content: null, tool_calls: calls };
  }
  if (body.includes(HUGE_REPLY_MARK)) {
    return { content: HUGE_REPLY, tool_calls: [{ id: 'call_huge_0', type: 'function', function: { name: 'list_files', arguments: '{}' } }] };
  }
  return undefined;
}

/** The simulator behind a front that answers a marked session's first request with a hostile reply. */
async function hostileFront(simulator: RunningSimulator): Promise<LoopbackHttp> {
  return serveOnLoopback(async (req, res) => {
    const body = await readAll(req);
    const text = body.toString('utf8');
    const hostile = req.url?.startsWith('/v1/chat/completions') ? hostileReply((JSON.parse(text) as { messages: SentMessage[] }).messages, text) : undefined;
    if (hostile === undefined) return relayAnswer(res, await forwardToLoopback(req, res, body, simulator.port));
    const completion = {
      id: 'chatcmpl-hostile',
      object: 'chat.completion',
      created: 0,
      model: 'agentd-sim',
      choices: [{ index: 0, message: { role: 'assistant', ...hostile }, finish_reason: 'tool_calls', logprobs: null }],
      usage: { prompt_tokens: 500, completion_tokens: 50, total_tokens: 550 },
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion));
  });
}

describe('noisy neighbours on one worker', skipWithoutBubblewrap(sandbox), () => {
  let stack: Stack;
  let simulator: RunningSimulator;
  let front: LoopbackHttp;
  let worker: WorkerProcess;

  before(async () => {
    stack = await startStack();
    // Model latency makes the innocent session's time mostly waiting, as with a real model, so the ratio measures the worker.
    simulator = await startSimulator({ latencyMs: 150 });
    front = await hostileFront(simulator);
    worker = await startPollingWorker({
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: front.baseURL,
      extra: { AGENTD_SHUTDOWN_GRACE_SECONDS: String(SHUTDOWN_GRACE_SECONDS) },
    });
  });

  after(async () => {
    await worker?.stop('SIGKILL');
    await front?.stop();
    await simulator?.stop();
    await stack?.stop();
  });

  async function runInnocent(): Promise<{ ms: number; result: SessionResult }> {
    const started = Date.now();
    const handle = await stack.sessions.start({ task: INNOCENT_TASK, model: 'agentd-sim' });
    const result = await stack.sessions.result(handle.workflowId);
    assert.equal(result.outcome, 'finished', `the innocent session finished: ${result.answer}`);
    const errors = toolResults(await stack.store.list(handle.workflowId)).filter((entry) => entry.output.startsWith('error: '));
    assert.deepEqual(errors, [], 'the innocent session saw no errors');
    return { ms: Date.now() - started, result };
  }

  it('keeps an innocent session within 1.5x of its control run beside each attack', { timeout: 8 * MINUTE }, async () => {
    // Warm-up (bundle load, first sandbox), then the control: the faster of two runs alone.
    await runInnocent();
    const controlMs = Math.min((await runInnocent()).ms, (await runInnocent()).ms);
    const lines = [`control: ${controlMs} ms`];
    for (const attack of ATTACKS) {
      const attacker = await stack.sessions.start({ task: attack.task, model: 'agentd-sim', toolTimeoutSeconds: 20 });
      const innocent = await runInnocent();
      const attacked = await stack.sessions.result(attacker.workflowId);
      const rows = await stack.store.list(attacker.workflowId);
      const ratio = innocent.ms / controlMs;
      lines.push(`${attack.name}: innocent ${innocent.ms} ms (${ratio.toFixed(2)}x); attacker ${attacked.outcome} in ${attacked.steps} steps`);
      assert.equal(attacked.outcome, 'finished', `${attack.name}: the attacking session ends cleanly (${attacked.answer})`);
      assert.ok(attack.toldClearly(rows), `${attack.name}: the attacking session was told what happened`);
      assert.ok(ratio <= SLOWDOWN_ALLOWED, `${attack.name}: innocent ${innocent.ms} ms against control ${controlMs} ms (${ratio.toFixed(2)}x)`);
    }
    console.log(`noisy neighbours:\n  ${lines.join('\n  ')}`);
  });

  it('exits within 10 s of SIGTERM while every attack runs', { timeout: 2 * MINUTE }, async () => {
    for (const attack of ATTACKS) await stack.sessions.start({ task: attack.task, model: 'agentd-sim', toolTimeoutSeconds: 20 });
    // Let them reach their heavy steps.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const signalled = Date.now();
    const exited = await worker.stop('SIGTERM');
    const exitMs = Date.now() - signalled;
    console.log(`SIGTERM with ${ATTACKS.length} attacks running: worker exited with code ${exited.code} after ${exitMs} ms`);
    assert.ok(exitMs <= SIGTERM_EXIT_MS, `the worker exited ${exitMs} ms after SIGTERM`);
    assert.equal(exited.code, 0, exited.stderr.slice(-2000));
  });
});
