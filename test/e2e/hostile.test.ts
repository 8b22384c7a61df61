/**
 * Hostile input in real sessions (issue 17): a worker process, the dev server, bubblewrap and a simulator
 * scripted with `[sim call …]` lines. What one session does to its workspace must not reach other sessions,
 * the worker or the host.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { requireBubblewrap, skipWithoutBubblewrap } from '../helpers/bubblewrap';
import { startStack, type Stack } from '../../harness/stack';
import { toolResults } from '../../harness/transcriptChecks';
import { startWorkerProcess, type WorkerProcess } from '../../harness/workerProcess';

const MINUTE = 60_000;
const sandbox = requireBubblewrap();

function scripted(calls: ReadonlyArray<readonly [string, Record<string, unknown>]>): string {
  return calls.map(([name, args]) => `[sim call ${name} ${JSON.stringify(args)}]`).join('\n');
}

describe('hostile input in real sessions', skipWithoutBubblewrap(sandbox), () => {
  let stack: Stack;
  let simulator: RunningSimulator;
  let worker: WorkerProcess;

  before(async () => {
    stack = await startStack();
    simulator = await startSimulator({});
    worker = startWorkerProcess({
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: simulator.baseURL,
    });
  });

  after(async () => {
    await worker?.stop('SIGTERM');
    await simulator?.stop();
    await stack?.stop();
  });

  it('five sessions reading and writing named pipes do not stop an innocent session beside them', { timeout: 4 * MINUTE }, async () => {
    const attempts = [
      ['run_command', { command: 'mkfifo p q && echo made' }],
      ['read_file', { path: 'p' }],
      ['write_file', { path: 'q', content: 'into the pipe' }],
      // A reader in the background: its open blocks inside the sandbox, where it belongs, until the command ends.
      ['run_command', { command: '(cat q > /dev/null &) ; sleep 1; echo reader-started', timeoutSeconds: 3 }],
      ['read_file', { path: 'q' }],
      ['list_files', { path: 'p' }],
    ] as const;
    const pipeTask = `Jam the worker with pipes. [sim steps=${attempts.length + 4}]\n${scripted(attempts)}`;
    // Five hostile sessions, more than libuv's four threadpool threads, each with a 5 s tool time limit.
    const hostile = await Promise.all(
      Array.from({ length: 5 }, () => stack.sessions.start({ task: pipeTask, model: 'agentd-sim', toolTimeoutSeconds: 5 })),
    );
    const innocent = await stack.sessions.start({ task: 'An ordinary task. [sim steps=4]', model: 'agentd-sim', toolTimeoutSeconds: 5 });

    const innocentResult = await stack.sessions.result(innocent.workflowId);
    assert.equal(innocentResult.outcome, 'finished');
    const innocentOutputs = toolResults(await stack.store.list(innocent.workflowId));
    assert.deepEqual(innocentOutputs.filter((entry) => entry.output.startsWith('error: ')), [], 'the innocent session saw no errors');

    const refusal = /^error: path "[pq]" is a named pipe \(FIFO\); file tools read and write only regular files$/;
    for (const handle of hostile) {
      const result = await stack.sessions.result(handle.workflowId);
      assert.equal(result.outcome, 'finished', handle.workflowId);
      const outputs = toolResults(await stack.store.list(handle.workflowId));
      assert.match(outputs[0]?.output ?? '', /^made\nexit code: 0$/);
      for (const index of [1, 2, 4, 5]) assert.match(outputs[index]?.output ?? '', refusal, `${handle.workflowId} result ${index + 1}`);
      assert.match(outputs[3]?.output ?? '', /reader-started|killed after 3s/);
    }
    console.log(`pipes: 5 hostile sessions refused ${5 * 4} pipe opens; the innocent session finished in ${innocentResult.steps} steps`);
  });

  it('symlink errors reveal nothing about the host: existing, missing and /proc targets read the same', { timeout: 3 * MINUTE }, async () => {
    const links = ['passwd', 'missing', 'cwd', 'environ', 'fd26'];
    const attempts = [
      ['run_command', { command: 'ln -s /etc/passwd passwd && ln -s /etc/agentd-no-such-file missing && ln -s /proc/self/cwd cwd && ' +
        'ln -s /proc/self/environ environ && ln -s /proc/self/fd/26 fd26 && echo linked' }],
      ...links.map((name) => ['read_file', { path: name }] as const),
      ['write_file', { path: 'missing', content: 'planted' }],
      ['list_files', { path: 'cwd' }],
    ] as const;
    const handle = await stack.sessions.start({
      task: `Probe the host. [sim steps=${attempts.length + 4}]\n${scripted(attempts)}`,
      model: 'agentd-sim',
    });
    const result = await stack.sessions.result(handle.workflowId);
    assert.equal(result.outcome, 'finished');
    const outputs = toolResults(await stack.store.list(handle.workflowId));
    assert.match(outputs[0]?.output ?? '', /^linked\nexit code: 0$/);
    const refusal = (name: string) =>
      `error: path "${name}" leads through a symlink outside the workspace or to nothing; file tools follow symlinks only to existing files and folders inside it`;
    const probed = [...links, 'missing', 'cwd'];
    probed.forEach((name, index) => assert.equal(outputs[index + 1]?.output, refusal(name), `probe ${index + 1}`));
    const everything = outputs.map((entry) => entry.output).join('\n');
    for (const hostDetail of [stack.dir, stack.workspaceRoot, stack.storeFile, `/proc/${worker.pid}`, '/etc', 'does not exist']) {
      assert.ok(!everything.includes(hostDetail), `a result names ${hostDetail}`);
    }
  });
});
