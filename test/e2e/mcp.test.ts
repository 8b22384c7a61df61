/**
 * MCP servers as tool sources, end to end: the real dev server, a real worker, the simulator over
 * HTTP, and MCP servers from npm that nobody here wrote (filesystem; everything over stdio and HTTP).
 */
import { temporal } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createActivities, type ActivityDeps } from '../../src/activities';
import type { RunToolResult } from '../../src/activities/types';
import { freePort } from '../../src/devServer/freePort';
import { McpServersSchema, type McpServerConfig } from '../../src/mcp/config';
import { McpHub } from '../../src/mcp/hub';
import { createModelClient } from '../../src/model/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server';
import { createBuiltinRegistry } from '../../src/tools/registry';
import { sessionTools } from '../../src/tools/sessionTools';
import type { ToolContext } from '../../src/tools/tool';
import { eventually, startStack, type Stack } from '../../harness/stack';
import { toolResults } from '../../harness/transcriptChecks';
import { SandboxKind } from '../../src/tools/sandbox';
import { detectSandboxFromEnv } from '../../src/worker/sandboxFromConfig';

/** MCP tools run no shell commands themselves; run_command's sandbox does not apply to them. */
const NO_COMMANDS = { kind: SandboxKind.refused, reason: 'not used by MCP tools' } as const;

/** The entry point of an npm MCP server, run with this node: no network, no npx. */
function serverScript(pkg: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
}

const FILESYSTEM = serverScript('@modelcontextprotocol/server-filesystem');
const EVERYTHING = serverScript('@modelcontextprotocol/server-everything');

/** server-everything's streamable HTTP mode on a free port, ready when it says it listens. */
async function startEverythingHttp(port?: number): Promise<{ url: string; child: ChildProcess }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (/listening on port/.test(said)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`everything (http) exited with ${code}: ${said}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

describe('MCP servers as tool sources', () => {
  let stack: Stack;
  let http: { url: string; child: ChildProcess };
  let servers: McpServerConfig[];

  before(async () => {
    stack = await startStack();
    http = await startEverythingHttp();
    servers = McpServersSchema.parse([
      { name: 'fs', transport: 'stdio', command: process.execPath, args: [FILESYSTEM, '{workspace}'] },
      { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
      { name: 'web', transport: 'http', url: http.url },
    ]);
  });
  after(async () => {
    http?.child.kill();
    await stack?.stop();
  });

  /** What a tool called directly (outside an activity) gets: MCP tools use only the signal and the limits. */
  function toolContext(): ToolContext {
    return { workspace: stack.workspaceRoot, signal: new AbortController().signal, timeoutMs: 30_000, outputCapChars: 100_000, sandbox: NO_COMMANDS };
  }

  /** A fresh worker whose sessions see the built-ins and the MCP servers' tools. */
  async function withMcpWorker<T>(hub: McpHub, work: (simulator: RunningSimulator) => Promise<T>): Promise<T> {
    const simulator = await startSimulator({});
    try {
      return await stack.runWorker({ model: createModelClient({ baseURL: simulator.baseURL }), extraTools: hub }, () => work(simulator));
    } finally {
      await simulator.stop();
    }
  }

  it('shows the model each server\'s tools, prefixed, with the server\'s own schema and effect', async () => {
    process.env.AGENTD_TEST_SECRET = 'sk-must-not-leak';
    const hub = new McpHub(servers);
    try {
      const tools = await sessionTools({ tools: createBuiltinRegistry(), extraTools: hub, workspaceRoot: stack.workspaceRoot }, 'listing');
      const specs = new Map(tools.specs().map((spec) => [spec.function.name, spec.function]));
      assert.ok(specs.has('read_file'), 'the built-ins are still there');
      const readText = specs.get('fs__read_text_file');
      assert.ok(readText, `fs tools listed: ${[...specs.keys()].join(', ')}`);
      assert.ok((readText.parameters.properties as Record<string, unknown>).path, 'the server\'s JSON schema reaches the model');
      assert.ok(specs.has('everything__get-sum') && specs.has('web__echo'));
      assert.equal(tools.get('fs__read_text_file')?.effect, 'read', 'readOnlyHint: true');
      assert.equal(tools.get('fs__write_file')?.effect, 'write', 'readOnlyHint: false');
      for (const name of specs.keys()) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
      const builtins = createBuiltinRegistry().names();
      assert.deepEqual(tools.names().slice(0, builtins.length), builtins, 'built-ins first, then servers in configuration order');
      assert.equal(hub.processes().filter((p) => p.server === 'fs').length, 1, 'one filesystem server, for this workspace');

      // The worker's secrets stay in the worker: a stdio server inherits only harmless variables.
      const getEnv = tools.get('everything__get-env');
      assert.ok(getEnv);
      const ctx = toolContext();
      const shown = (await getEnv.run({}, ctx)).output;
      assert.match(shown, /"PATH"/, 'get-env shows the environment it got');
      assert.doesNotMatch(shown, /AGENTD_TEST_SECRET|sk-must-not-leak/);
    } finally {
      delete process.env.AGENTD_TEST_SECRET;
      await hub.close();
    }
  });

  it('runs a scripted session that calls the filesystem server and the everything server (stdio and http)', async () => {
    const hub = new McpHub(servers);
    try {
      await withMcpWorker(hub, async () => {
        const sessionId = 'mcp-both';
        const workspace = join(stack.workspaceRoot, sessionId);
        // Another session's file exists, so a refusal cannot be mistaken for "not found".
        await mkdir(join(stack.workspaceRoot, 'other-session'), { recursive: true });
        await writeFile(join(stack.workspaceRoot, 'other-session', 'secret.txt'), 'not yours');
        const task = [
          'Use the MCP tools.',
          '[sim call fs__write_file {"path":"notes.txt","content":"written through MCP"}]',
          `[sim call fs__read_text_file {"path":${JSON.stringify(join(workspace, 'notes.txt'))}}]`,
          '[sim call fs__read_text_file {"path":"../other-session/secret.txt"}]',
          '[sim call everything__get-sum {"a":2,"b":40}]',
          '[sim call web__echo {"message":"over streamable http"}]',
        ].join('\n');
        const handle = await stack.sessions.start({ task, model: 'agentd-sim' }, { sessionId });
        const result = await stack.sessions.result(handle.workflowId);
        assert.equal(result.outcome, 'finished');
        assert.equal(result.steps, 6, 'five scripted calls and finish');

        assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'written through MCP', 'the file is in the session workspace');
        const outputs = toolResults(await stack.store.list(sessionId)).map((result) => result.output);
        assert.equal(outputs.length, 6);
        assert.doesNotMatch(outputs[0] ?? '', /^error/, 'a relative path is taken inside the workspace the server was started for');
        assert.equal(outputs[1], 'written through MCP');
        assert.doesNotMatch(outputs[2] ?? '', /not yours/);
        assert.match(outputs[2] ?? '', /^error: .*(denied|outside)/i, 'the filesystem server refuses a path out of the session workspace');
        assert.match(outputs[3] ?? '', /42/);
        assert.equal(outputs[4], 'Echo: over streamable http');
      });
    } finally {
      await hub.close();
    }
  });

  it('restarts a killed server on next use; the call in flight fails clearly and the session goes on', async () => {
    const hub = new McpHub(servers);
    try {
      await withMcpWorker(hub, async () => {
        const sessionId = 'mcp-killed';
        const task = [
          'Survive a crash.',
          '[sim call everything__trigger-long-running-operation {"duration":60,"steps":6}]',
          '[sim call everything__echo {"message":"after restart"}]',
        ].join('\n');
        const handle = await stack.sessions.start({ task, model: 'agentd-sim', toolTimeoutSeconds: 120 }, { sessionId });
        // Kill only once a worker runs the tool activity; the call reaches the server a moment later
        // and then lasts a minute, so the kill lands while it is in flight.
        await eventually(async () => {
          const { raw } = await handle.describe();
          const running = raw.pendingActivities?.some(
            (activity) => activity.activityType?.name === 'runTool' && activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
          );
          return running ? true : undefined;
        }, 'the long call to start');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const victim = hub.processes().find((p) => p.server === 'everything');
        assert.ok(victim, 'the everything server runs');
        process.kill(victim.pid, 'SIGKILL');

        const result = await stack.sessions.result(handle.workflowId);
        assert.equal(result.outcome, 'finished');
        const outputs = toolResults(await stack.store.list(sessionId)).map((result) => result.output);
        assert.match(
          outputs[0] ?? '',
          /^error: MCP server "everything" stopped answering during tool trigger-long-running-operation .*started again on the next call/,
        );
        assert.equal(outputs[1], 'Echo: after restart', 'the next call reached a fresh server');
        const restarted = hub.processes().find((p) => p.server === 'everything');
        assert.ok(restarted && restarted.pid !== victim.pid && restarted.starts === 2);
      });
    } finally {
      await hub.close();
    }
  });

  it('an HTTP server that went away fails the call clearly, and is reached again once it is back', async () => {
    const own = await startEverythingHttp();
    const hub = new McpHub([{ name: 'web2', transport: 'http', url: own.url }]);
    const ctx = toolContext();
    const echo = async (message: string) => {
      const tool = (await hub.toolsFor(stack.workspaceRoot).catch(() => [])).find((t) => t.name === 'web2__echo');
      return tool ? (await tool.run({ message }, ctx)).output : 'not listed';
    };
    let back: { child: ChildProcess } | undefined;
    try {
      assert.equal(await echo('before'), 'Echo: before');
      // Listed while the server was up, called after it died: the call in flight has no server.
      const [tool] = (await hub.toolsFor(stack.workspaceRoot)).filter((t) => t.name === 'web2__echo');
      assert.ok(tool);
      own.child.kill('SIGKILL');
      await new Promise((resolve) => own.child.once('exit', resolve));
      assert.match((await tool.run({ message: 'lost' }, ctx)).output, /^error: MCP server "web2" (stopped answering|could not be started)/);
      back = await startEverythingHttp(Number(new URL(own.url).port));
      assert.equal(await echo('after'), 'Echo: after', 'a fresh HTTP session with the server that came back');
    } finally {
      back?.child.kill();
      own.child.kill();
      await hub.close();
    }
  });

  it('stops a per-workspace server left idle, and starts it again when the session comes back', async () => {
    const hub = new McpHub(servers.filter((server) => server.name === 'fs'), { idleMs: 300 });
    try {
      await mkdir(join(stack.workspaceRoot, 'idle'), { recursive: true });
      await hub.toolsFor(join(stack.workspaceRoot, 'idle'));
      const first = hub.processes()[0];
      assert.ok(first);
      await eventually(async () => (hub.processes().length === 0 ? true : undefined), 'the idle server to stop', 10_000);
      await hub.toolsFor(join(stack.workspaceRoot, 'idle'));
      const second = hub.processes()[0];
      assert.ok(second && second.pid !== first.pid);
    } finally {
      await hub.close();
    }
  });

  /**
   * The everything server made per-workspace by `{workspace}` in its env (its long operation keeps an
   * instance busy), with helpers to list a workspace's tool and name the workspaces running.
   */
  function perWorkspaceEverything(options: { maxInstances?: number; idleMs?: number }) {
    const [server] = McpServersSchema.parse([
      { name: 'ev', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: { SEEN: '{workspace}' }, maxInstances: options.maxInstances },
    ]);
    assert.ok(server);
    const hub = new McpHub([server], options.idleMs === undefined ? {} : { idleMs: options.idleMs });
    const toolIn = async (workspace: string, name: string) => {
      const tool = (await hub.toolsFor(join(stack.workspaceRoot, workspace))).find((t) => t.name === name);
      assert.ok(tool, `${name} listed for ${workspace}`);
      return tool;
    };
    const workspacesRunning = () => hub.processes().map((p) => p.workspace?.split('/').pop()).sort();
    return { hub, toolIn, workspacesRunning, ctx: toolContext() };
  }

  it('keeps a per-workspace server within maxInstances, stopping the least recently used idle instance', async () => {
    const { hub, toolIn, workspacesRunning, ctx } = perWorkspaceEverything({ maxInstances: 2 });
    try {
      const long = (await toolIn('busy', 'ev__trigger-long-running-operation')).run({ duration: 3, steps: 3 }, ctx);
      await toolIn('idle', 'ev__echo');
      assert.deepEqual(workspacesRunning(), ['busy', 'idle']);
      // A third workspace: 'busy' was used first but has a call in flight, so 'idle' is the one stopped.
      const echo = await toolIn('third', 'ev__echo');
      assert.deepEqual(workspacesRunning(), ['busy', 'third']);
      assert.equal((await echo.run({ message: 'hi' }, ctx)).output, 'Echo: hi');
      assert.match((await long).output, /Long running operation completed/);
      // A tool listed before its instance was stopped reaches a fresh instance, which the hub counts.
      const stale = await toolIn('idle', 'ev__echo');
      await toolIn('fourth', 'ev__echo');
      await toolIn('fifth', 'ev__echo');
      assert.equal((await stale.run({ message: 'again' }, ctx)).output, 'Echo: again');
      assert.deepEqual(workspacesRunning(), ['fifth', 'idle']);
    } finally {
      await hub.close();
    }
  });

  it('does not stop a per-workspace server for idleness while a call runs on it', async () => {
    // idleMs well over a busy CI machine's pauses between listing the tools and reading the process,
    // and still well under the two-second call.
    const { hub, toolIn, workspacesRunning, ctx } = perWorkspaceEverything({ idleMs: 1_000 });
    try {
      const tool = await toolIn('long', 'ev__trigger-long-running-operation');
      const pid = hub.processes()[0]?.pid;
      assert.match((await tool.run({ duration: 2, steps: 2 }, ctx)).output, /Long running operation completed/);
      assert.equal(hub.processes()[0]?.pid, pid, 'the same process answered, though the call outlasted idleMs');
      await eventually(async () => (workspacesRunning().length === 0 ? true : undefined), 'the idle server to stop', 10_000);
    } finally {
      await hub.close();
    }
  });

  it('reads from MCP retry; writes run at most once (started markers, DESIGN §6)', async () => {
    const hub = new McpHub(servers);
    const deps: ActivityDeps = {
      store: stack.store,
      model: createModelClient({ baseURL: 'http://127.0.0.1:9/v1' }),
      tools: createBuiltinRegistry(),
      extraTools: hub,
      workspaceRoot: stack.workspaceRoot,
      commandSandbox: detectSandboxFromEnv(),
    };
    const activities = createActivities(deps);
    try {
      const workspace = join(stack.workspaceRoot, 'mcp-once');
      const calls = [
        { id: 'call_r', type: 'function' as const, function: { name: 'everything__get-sum', arguments: '{"a":1,"b":1}' } },
        {
          id: 'call_w',
          type: 'function' as const,
          function: { name: 'fs__write_file', arguments: JSON.stringify({ path: join(workspace, 'twice.txt'), content: 'x' }) },
        },
      ];
      await stack.store.put('mcp-once', 0, { role: 'assistant', content: null, tool_calls: calls });
      // Both calls' first attempts started and their worker died before storing a result.
      assert.equal(await stack.store.markStarted('mcp-once', 1), true);
      assert.equal(await stack.store.markStarted('mcp-once', 2), true);
      const base = { sessionId: 'mcp-once', callSeq: 0, timeoutSeconds: 30, outputCapChars: 10_000 };
      const read: RunToolResult = await new MockActivityEnvironment().run(activities.runTool, { ...base, seq: 1, toolCallId: 'call_r' });
      const write: RunToolResult = await new MockActivityEnvironment().run(activities.runTool, { ...base, seq: 2, toolCallId: 'call_w' });
      assert.equal(read.isError, false, 'a read-only MCP tool simply runs again');
      assert.match((await stack.store.get('mcp-once', 1))?.message.content ?? '', /2/);
      assert.equal(write.isError, true);
      assert.match((await stack.store.get('mcp-once', 2))?.message.content ?? '', /^error: interrupted: .*fs__write_file.*not run again/);
      assert.equal(existsSync(join(workspace, 'twice.txt')), false, 'the write was not repeated');
    } finally {
      await hub.close();
    }
  });
});
