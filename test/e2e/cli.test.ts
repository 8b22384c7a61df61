/** The command lines users type: agentd's own CLI and the stock `temporal` CLI as a client. */
import { execFile } from 'node:child_process';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_COMMAND_LIMITS, SandboxKind, detectCommandSandbox } from '../../src/tools/sandbox';
import { findTemporalCli } from '../../src/devServer/temporalCli';
import type { SessionResult, SessionState } from '../../src/session/state';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { agentdOn } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

const run = promisify(execFile);

describe('command lines', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  it('starts, follows, inspects and lists a session', async () => {
    await stack.withWorker({}, async () => {
      const started = await agentd('start', 'cli job [sim steps=3]', '--follow', '--json', '--id', 'cli-session-1');
      assert.equal(started.code, 0, started.stderr);
      const result = JSON.parse(started.stdout) as SessionResult;
      assert.equal(result.sessionId, 'cli-session-1');
      assert.equal(result.outcome, 'finished');

      const status = await agentd('status', 'cli-session-1', '--json');
      assert.equal(status.code, 0, status.stderr);
      const state = JSON.parse(status.stdout) as SessionState;
      assert.equal(state.status, 'completed');
      assert.equal(state.step, 4);

      const human = await agentd('status', 'cli-session-1');
      assert.match(human.stdout, /status +completed \(finished\)/);

      const transcript = await agentd('transcript', 'cli-session-1', '--json');
      assert.equal(transcript.code, 0, transcript.stderr);
      const lines = transcript.stdout.trim().split('\n').map((line) => JSON.parse(line) as { seq: number; role: string });
      assert.deepEqual(lines.slice(0, 2).map((line) => line.role), ['system', 'user']);
      assert.equal(lines.length, 2 + 4 * 2);

      const list = await agentd('list', '--json');
      assert.equal(list.code, 0, list.stderr);
      const rows = JSON.parse(list.stdout) as Array<{ sessionId: string; runStatus: string; status: string; step?: number }>;
      assert.ok(rows.some((row) => row.sessionId === 'cli-session-1' && row.runStatus === 'COMPLETED' && row.status === 'completed' && row.step === 4), list.stdout);
    });
    // The worker is gone: a query would wait for one to replay the closed workflow, the result need not.
    const afterWorkers = await agentd('status', 'cli-session-1', '--json');
    assert.equal(afterWorkers.code, 0, afterWorkers.stderr);
    const final = JSON.parse(afterWorkers.stdout) as SessionState;
    assert.deepEqual([final.status, final.outcome, final.step], ['completed', 'finished', 4]);
    assert.ok(final.context.messages > 0);
  });

  it('--follow prints every step up to the last, the finish call, and the final status after them', async () => {
    await stack.withWorker({}, async () => {
      const followed = await agentd('start', 'follow me to the end [sim steps=6]', '--follow', '--id', 'cli-follow-1');
      assert.equal(followed.code, 0, followed.stderr);
      const lines = followed.stderr.split('\n');
      const stepLines = lines.filter((line) => /\] step +\d+ /.test(line));
      // Six scripted steps, then step 7 calls finish: each printed once, in order.
      assert.deepEqual(stepLines.map((line) => Number(/step +(\d+)/.exec(line)?.[1])), [1, 2, 3, 4, 5, 6, 7], followed.stderr);
      assert.match(stepLines.at(-1) ?? '', /step +7 {2}finish/);
      const completedAt = lines.findIndex((line) => line.endsWith('] completed'));
      assert.ok(completedAt > lines.indexOf(stepLines.at(-1) ?? ''), `completed comes after the last step:\n${followed.stderr}`);
      assert.match(followed.stdout, /session cli-follow-1 finished after 1 turn\(s\), 7 steps/);
    });
  });

  it('shows escape sequences from model, tool and user text visibly in --follow, status and transcript; --json keeps them', async () => {
    // The simulator parses the JSON of each [sim call] line, so \u001b in it is a real ESC in the call.
    const task = [
      'hostile text \u001b[31mred\u001b[0m [sim steps=3]',
      '[sim call write_file {"path":"h.txt","content":"A\\u001b[2JB\\u001b]0;pwned\\u0007C"}]',
      '[sim call read_file {"path":"h.txt"}]',
      '[sim call finish {"answer":"done \\u001b]0;owned\\u0007 \\u009b31m"}]',
    ].join('\n');
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
    await stack.withWorker({}, async () => {
      const followed = await agentd('start', task, '--follow', '--id', 'cli-escapes');
      assert.equal(followed.code, 0, followed.stderr);
      for (const [what, text] of [['--follow', followed.stderr + followed.stdout], ['status', (await agentd('status', 'cli-escapes')).stdout],
        ['transcript', (await agentd('transcript', 'cli-escapes', '--full')).stdout]] as const) {
        assert.doesNotMatch(text, raw, `${what} printed a raw control character`);
      }
      assert.match(followed.stdout, /answer: done \\x1b\]0;owned\\x07 \\x9b31m/);
      const transcript = (await agentd('transcript', 'cli-escapes', '--full')).stdout;
      assert.match(transcript, /A\\x1b\[2JB\\x1b\]0;pwned\\x07C/, 'the tool output, escaped');
      assert.match(transcript, /hostile text \\x1b\[31mred/, 'the task, escaped');
      const exact = JSON.parse((await agentd('status', 'cli-escapes', '--json')).stdout) as SessionState;
      assert.equal(exact.answer, 'done \u001b]0;owned\u0007 \u009b31m', '--json is exact');
      const unknown = await agentd('transcript', 'no-such\u001b[2Jsession');
      assert.equal(unknown.code, 3);
      assert.doesNotMatch(unknown.stderr, raw, 'an unknown id is echoed escaped');
      assert.match(unknown.stderr, /no-such\\x1b\[2Jsession/);
    });
  });

  it('answers the stock temporal CLI: query state', async () => {
    await stack.withWorker({}, async () => {
      const handle = await stack.sessions.start({ task: 'stock cli [sim steps=2]', model: 'agentd-sim' });
      await stack.sessions.result(handle.workflowId);
      const cli = findTemporalCli();
      assert.ok(cli, 'the temporal CLI is installed');
      const { stdout } = await run(cli, [
        'workflow', 'query', '--workflow-id', handle.workflowId, '--type', 'state',
        '--address', stack.temporal.address, '--output', 'json',
      ]);
      const answer = JSON.parse(stdout) as { queryResult: SessionState[] };
      assert.equal(answer.queryResult[0]?.sessionId, handle.workflowId);
      assert.equal(answer.queryResult[0]?.status, 'completed');
    });
  });

  it('a stock-CLI start of a known model without a window gets the same window and price as agentd start', async () => {
    const cli = findTemporalCli();
    assert.ok(cli, 'the temporal CLI is installed');
    // The simulator answers as the one model it is told to be, like an account with one model.
    for (const model of ['agentd-sim', 'gpt-4o-mini']) {
      await stack.withWorker({ model }, async () => {
        const stockId = `stock-start-${model}`;
        const task = `same contract [sim steps=2]`;
        await run(cli, [
          'workflow', 'start', '--type', 'agentSession', '--task-queue', 'agentd', '--workflow-id', stockId,
          '--input', JSON.stringify({ task, model }), '--address', stack.temporal.address,
        ]);
        const started = await agentd('start', task, '--model', model, '--follow', '--json', '--id', `agentd-start-${model}`);
        assert.equal(started.code, 0, started.stderr);
        const viaAgentd = (JSON.parse(started.stdout) as SessionResult).finalState;
        const viaStock = (await stack.sessions.result(stockId)).finalState;
        assert.ok(viaAgentd && viaStock);
        assert.equal(viaStock.status, 'completed');
        assert.equal(viaStock.context.window, viaAgentd.context.window, model);
        assert.deepEqual(viaStock.spend.price, viaAgentd.spend.price, model);
        if (model === 'agentd-sim') {
          assert.equal(viaStock.context.window, 128_000);
          assert.ok(viaStock.spend.price && viaStock.spend.costUsd > 0, 'the simulator\'s nominal price is billed');
        } else {
          assert.equal(viaStock.context.window, 128_000);
        }
      });
    }
    await stack.withWorker({}, async () => {
      // An unknown model without a window fails at once, naming the field, and is not retried.
      const unknownId = 'stock-start-unknown';
      await run(cli, [
        'workflow', 'start', '--type', 'agentSession', '--task-queue', 'agentd', '--workflow-id', unknownId,
        '--input', JSON.stringify({ task: 'x', model: 'my-llm' }), '--address', stack.temporal.address,
      ]);
      await assert.rejects(stack.sessions.result(unknownId), (error: Error) => {
        assert.match(String((error.cause as Error | undefined)?.message), /contextWindow: model 'my-llm' has no known context window/);
        return true;
      });
    });
  });

  it('names bad input and exits 2 without starting anything', async () => {
    const empty = await agentd('start', '');
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /task/);
    const unknownModel = await agentd('start', 'x', '--model', 'my-local-llm');
    assert.equal(unknownModel.code, 2);
    assert.match(unknownModel.stderr, /contextWindow: model 'my-local-llm'.*--context-window/);
    const badNumber = await agentd('start', 'x', '--max-steps', 'many');
    assert.equal(badNumber.code, 2);
    assert.match(badNumber.stderr, /--max-steps: expected a positive whole number, got 'many'/);
    const badFlag = await agentd('status', 'x', '--bogus');
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /bogus/);
  });

  it('validates arguments and the whole session input before connecting: exit 2 naming the field, with no server', async () => {
    // Nothing listens on port 1: a command that connected first would exit 4 instead.
    const noServer = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const cases: Array<{ args: string[]; field: RegExp }> = [
      { args: ['start', 'x', '--context-window', '5'], field: /contextWindow: Too small: expected number to be >=1024/ },
      // No reserve fits a 5-token window: the hint says so instead of proposing "at most 2".
      { args: ['start', 'x', '--context-window', '5'], field: /no reserveTokens fits a window this small .*declare a contextWindow of at least 2048/ },
      { args: ['start', 'x', '--context-window', '4096'], field: /lower reserveTokens to between 1024 \(minRoomTokens\) and 2048/ },
      { args: ['start', 'x', '--model', 'foo'], field: /contextWindow: model 'foo' has no known context window/ },
      { args: ['start', 'x', '--compaction', '{"bogus":1}'], field: /compaction: Unrecognized key: "bogus"/ },
      { args: ['start', 'x', '--model', 'my-llm', '--context-window', '32768', '--max-cost-usd', '1'], field: /prices: maxCostUsd needs a price for model 'my-llm'/ },
      { args: ['start', 'x', '--max-repeated-tool-calls', '1'], field: /maxRepeatedToolCalls: Too small/ },
      { args: ['approve', 'some-session', '--max-repeated-tool-calls', '1'], field: /maxRepeatedToolCalls: Too small/ },
      { args: ['demo', '--context-window', '5'], field: /contextWindow: Too small/ },
    ];
    for (const { args, field } of cases) {
      const started = Date.now();
      const answer = await finished(spawnNode(entryPoint('cli/main'), args, noServer));
      const tookMs = Date.now() - started;
      assert.equal(answer.code, 2, `${args.join(' ')}: ${answer.stderr}`);
      assert.match(answer.stderr, field, args.join(' '));
      assert.doesNotMatch(answer.stderr, /cannot reach the Temporal server/);
      console.log(`agentd ${args.join(' ')}: exit 2 in ${tookMs} ms`);
    }
    const badStore = await finished(spawnNode(entryPoint('cli/main'), ['transcript', 'x'], { ...noServer, AGENTD_STORE: 'postgres://[bad' }));
    assert.equal(badStore.code, 2, badStore.stderr);
    assert.match(badStore.stderr, /AGENTD_STORE: not a valid PostgreSQL URL/);
  });

  it('exits 3 for a session that does not exist and 4 when the server is unreachable', async () => {
    const missing = await agentd('status', 'no-such-session');
    assert.equal(missing.code, 3, missing.stderr);
    const unreachable = await finished(
      spawnNode(entryPoint('cli/main'), ['status', 'x'], { TEMPORAL_ADDRESS: '127.0.0.1:1' }),
    );
    assert.equal(unreachable.code, 4, unreachable.stderr);
    assert.match(unreachable.stderr, /agentd dev/);
  });

  it('with no worker running: list shows a running session from the attributes its start set, status exits 4 and says why', async () => {
    const handle = await stack.sessions.start({ task: 'nobody works on this', model: 'agentd-sim' }, { sessionId: 'cli-no-worker' });
    try {
      const list = await agentd('list', '--json');
      assert.equal(list.code, 0, list.stderr);
      const rows = JSON.parse(list.stdout) as Array<{ sessionId: string }>;
      const description = await handle.describe();
      assert.deepEqual(rows.find((row) => row.sessionId === 'cli-no-worker'), {
        sessionId: 'cli-no-worker',
        runId: description.runId,
        runStatus: 'RUNNING',
        status: 'running',
        step: 0,
        contextFill: 0,
        costUsd: 0,
        model: 'agentd-sim',
        startedAt: description.startTime.toISOString(),
      });
      const status = await agentd('status', 'cli-no-worker');
      assert.equal(status.code, 4, status.stderr);
      assert.match(status.stderr, /session cli-no-worker did not answer its state query: no worker took it in time .*agentd worker/);
    } finally {
      await handle.terminate('test over');
    }
  });

  it('agentd setup says in one line which optional parts are present and how to add the missing ones', async () => {
    const emptyBin = mkdtempSync(join(tmpdir(), 'agentd-setup-path-'));
    try {
      // node runs by its absolute path; the empty PATH hides bwrap (and psql, unless Debian's folder has it).
      const bare = await finished(spawnNode(entryPoint('cli/main'), ['setup'], { PATH: emptyBin }));
      assert.equal(bare.code, 0, bare.stderr);
      const line = bare.stdout.split('\n').find((text) => text.startsWith('optional parts: ')) ?? '';
      assert.match(line, /bubblewrap missing \(run_command is refused until it is there: apt-get install bubblewrap, or set AGENTD_UNSANDBOXED_COMMANDS=1\)/);
      assert.match(line, /PostgreSQL client (present \(\/usr\/lib\/postgresql\/|missing \(apt-get install postgresql-client)/);
      assert.match(line, /model endpoint missing \(the built-in simulator answers; set OPENAI_BASE_URL/);

      const withEndpoint = await finished(
        spawnNode(entryPoint('cli/main'), ['setup'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', AGENTD_MODEL: 'gpt-4o-mini' }),
      );
      assert.equal(withEndpoint.code, 0, withEndpoint.stderr);
      assert.match(withEndpoint.stdout, /model endpoint present \(http:\/\/127\.0\.0\.1:9\/v1\)/);
      const sandbox = detectCommandSandbox({ unsandboxedCommands: false, limits: DEFAULT_COMMAND_LIMITS, searchPath: process.env.PATH ?? '' });
      const bubblewrap = sandbox.kind === SandboxKind.bubblewrap ? 'present (run_command is sandboxed)' : 'missing';
      assert.ok(withEndpoint.stdout.includes(`optional parts: bubblewrap ${bubblewrap}`), withEndpoint.stdout);
    } finally {
      rmSync(emptyBin, { recursive: true, force: true });
    }
  });

  it('prints help for every command', async () => {
    const overview = await agentd('--help');
    assert.equal(overview.code, 0);
    for (const command of ['setup', 'demo', 'dev', 'worker', 'sim', 'start', 'status', 'watch', 'send', 'list', 'search-attributes', 'approve', 'cancel', 'transcript', 'console']) {
      assert.match(overview.stdout, new RegExp(`\\b${command}\\b`));
      const help = await agentd(command, '--help');
      assert.equal(help.code, 0, command);
      assert.match(help.stdout, new RegExp(`usage: agentd ${command}`));
    }
  });
});
