/**
 * Escape attempts in a real session: a worker process, the dev server and a simulator scripted with
 * `[sim call …]` lines. Each attempt comes back as a clear tool result and the session finishes.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { totalRejected } from '../../src/simulator/stats';
import { followSession } from '../../src/cli/follow';
import { requireBubblewrap, skipWithoutBubblewrap } from '../helpers/bubblewrap';
import { startHostService, type HostService } from '../helpers/hostService';
import { startStack, type Stack } from '../../harness/stack';
import { toolResults } from '../../harness/transcriptChecks';
import { startWorkerProcess } from '../../harness/workerProcess';

const MINUTE = 60_000;
const sandbox = requireBubblewrap();

function scripted(calls: ReadonlyArray<readonly [string, Record<string, unknown>]>): string {
  return calls.map(([name, args]) => `[sim call ${name} ${JSON.stringify(args)}]`).join('\n');
}

describe('isolation in a session', () => {
  let stack: Stack;
  let simulator: RunningSimulator;
  let host: HostService;
  let outside: string;

  before(async () => {
    stack = await startStack();
    simulator = await startSimulator({});
    outside = mkdtempSync(join(tmpdir(), 'agentd-isolation-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    host = await startHostService();
  });

  after(async () => {
    await host?.close();
    await simulator?.stop();
    await stack?.stop();
    rmSync(outside, { recursive: true, force: true });
  });

  it('refuses or contains every escape attempt and finishes', { ...skipWithoutBubblewrap(sandbox), timeout: 3 * MINUTE }, async () => {
    const worker = startWorkerProcess({
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: simulator.baseURL,
    });
    const attempts = [
      ['write_file', { path: '../escape.txt', content: 'out' }],
      ['read_file', { path: join(outside, 'secret.txt') }],
      ['run_command', { command: `ln -s ${join(outside, 'secret.txt')} secret-link && ln -s ${outside} out-dir && echo linked` }],
      ['read_file', { path: 'secret-link' }],
      ['write_file', { path: 'out-dir/pwned.txt', content: 'pwned' }],
      ['run_command', { command: `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${host.port} && cat <&3'` }],
      ['run_command', { command: `echo x > /etc/agentd-pwned; echo x > ${join(outside, 'pwned.txt')}` }],
      ['run_command', { command: 'bomb(){ bomb | bomb & }; bomb; sleep 2; echo bomb-over', timeoutSeconds: 6 }],
      ['run_command', { command: 'sleep 987123', timeoutSeconds: 2 }],
      ['run_command', { command: 'echo still-here' }],
    ] as const;
    let stderr = '';
    try {
      const handle = await stack.sessions.start({
        task: `Try to get out of the workspace. [sim steps=${attempts.length + 4}]\n${scripted(attempts)}`,
        model: 'agentd-sim',
        toolTimeoutSeconds: 20,
        // The fork bomb's "Cannot fork" flood varies with load; kept under the oversize threshold, it never
        // turns into a view that the simulator would page through with read_output, shifting the script.
        toolOutputCapChars: 20_000,
      });
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished');
      assert.equal(result.steps, attempts.length + 5);

      const outputs = toolResults(await stack.store.list(handle.workflowId));
      const expected: RegExp[] = [
        /^error: path "\.\.\/escape\.txt" is outside the workspace$/,
        /^error: path ".*secret\.txt" is outside the workspace$/,
        /^linked\nexit code: 0$/,
        /^error: path "secret-link" leads through a symlink outside the workspace or to nothing; file tools follow symlinks only to existing files and folders inside it$/,
        /^error: path "out-dir\/pwned\.txt" leads through a symlink outside the workspace or to nothing; /,
        /\/dev\/tcp\/127\.0\.0\.1\/\d+: (Connection refused|Network is unreachable)\nexit code: 1$/,
        /\/etc\/agentd-pwned: Read-only file system\n.*pwned\.txt: Directory nonexistent\nexit code: 2$/,
        /(Cannot fork|Resource temporarily unavailable)[\s\S]*(exit code: \d+|killed after 6s \(timeout\))$/,
        /^killed after 2s \(timeout\)$/,
        /^still-here\nexit code: 0$/,
      ];
      expected.forEach((pattern, index) => {
        const got = outputs[index];
        assert.ok(got, `result ${index + 1}`);
        assert.match(got.output, pattern, `attempt ${index + 1}: ${got.name} ${got.args}`);
      });
      // The usual cycle after the attempts: list, write, run, read, then finish, without errors.
      const rest = outputs.slice(expected.length);
      assert.deepEqual(rest.map((entry) => entry.name), ['list_files', 'write_file', 'run_command', 'read_file', 'finish']);
      assert.deepEqual(rest.filter((entry) => entry.output.startsWith('error: ')), []);

      assert.equal(host.connections(), 0, 'nothing reached the host server');
      assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'top secret');
      assert.equal(existsSync(join(outside, 'pwned.txt')), false);
      assert.equal(existsSync('/etc/agentd-pwned'), false);
      assert.equal(existsSync(join(stack.workspaceRoot, 'escape.txt')), false);
      assert.equal(totalRejected(simulator.stats()), 0);
      console.log(`isolation: ${expected.length} escape attempts refused or contained; session finished in ${result.steps} steps`);
    } finally {
      stderr = (await worker.stop('SIGTERM')).stderr;
    }
    assert.match(stderr, /run_command sandboxed with bubblewrap \(no network/);
  });

  it('without bubblewrap, the worker says so at start, run_command is refused once with its reason in the state, and the agent stops asking', { timeout: 3 * MINUTE }, async () => {
    const emptyBin = mkdtempSync(join(tmpdir(), 'agentd-no-bwrap-'));
    const worker = startWorkerProcess({
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: simulator.baseURL,
      extra: { PATH: emptyBin },
    });
    let stderr = '';
    try {
      // Eight steps: the scripted cycle would run a command at steps 3 and 7.
      const handle = await stack.sessions.start({ task: 'run something [sim steps=8]', model: 'agentd-sim' });
      const printed: string[] = [];
      const result = await followSession(stack.sessions, handle.workflowId, (line) => printed.push(line), 200);
      assert.equal(result.outcome, 'finished');
      const outputs = toolResults(await stack.store.list(handle.workflowId));
      const commands = outputs.filter((entry) => entry.name === 'run_command');
      assert.equal(commands.length, 1, 'after reading the refusal the agent does not ask again');
      assert.match(commands[0]?.output ?? '', /^error: bwrap \(Debian package bubblewrap\).* not found.*AGENTD_UNSANDBOXED_COMMANDS=1/);
      assert.deepEqual(outputs.filter((entry) => entry.name !== 'run_command' && entry.output.startsWith('error: ')), []);
      // The step line says why, instead of a bare "(error)".
      const stepLines = printed.filter((line) => line.includes(' run_command '));
      assert.equal(stepLines.length, 1, printed.join('\n'));
      assert.match(stepLines[0] ?? '', /step +3 {2}run_command {2}\(error: bwrap \(Debian package bubblewrap\).* not found/);
    } finally {
      stderr = (await worker.stop('SIGTERM')).stderr;
      rmSync(emptyBin, { recursive: true, force: true });
    }
    assert.match(stderr, /run_command disabled: bwrap .*not found/);
    assert.match(stderr, /optional parts: bubblewrap missing \(run_command is refused until it is there: apt-get install bubblewrap/);
  });
});
