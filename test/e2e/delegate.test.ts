/**
 * Delegation (DESIGN §3 "Delegation"): a parent's `delegate` calls start child sessions that run side
 * by side, each in its own window and workspace; the parent reads only their answers and files, their
 * spend rolls up into its own, and cancelling or interrupting the parent reaches them. Real dev server,
 * real SQLite store, the simulator over HTTP; one test kills the worker process mid-child.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { agentdOn, eventually, type Stack } from '../../harness/stack';
import { startWorkerProcess } from '../../harness/workerProcess';
import { createModelClient } from '../../src/model/client';
import { messageText } from '../../src/model/messageText';
import type { SessionResult, SessionState } from '../../src/session/state';
import { startSimulator } from '../../src/simulator/server';
import { serveScriptedReplies } from '../helpers/scriptedEndpoint';
import { suiteStack } from '../helpers/suiteStack';

const MINUTE = 60_000;

/** A parent task whose first step delegates `parts`, each child taking `steps` steps of its own. */
function delegatingTask(name: string, parts: readonly string[], steps: number, extra = ''): string {
  const calls = parts.map((part, index) => {
    const args = JSON.stringify({ task: `${name} part ${part}: look into it and write notes [sim steps=${steps}]`, ...(extra ? JSON.parse(extra) : {}) });
    return `[sim ${index === 0 ? 'call' : 'also'} delegate ${args}]`;
  });
  // The directive first: the children's own `[sim steps=…]` inside the calls must not set the parent's.
  return [`[sim steps=1] ${name}: split the job in ${parts.length}`, ...calls].join('\n');
}

async function childrenOf(stack: Stack, parentId: string, count: number, status?: string): Promise<string[]> {
  return eventually(async () => {
    const children = (await stack.sessions.state(parentId)).delegation?.children ?? [];
    const matching = children.filter((child) => status === undefined || child.status === status);
    return matching.length === count ? matching.map((child) => child.sessionId) : undefined;
  }, `${count} children of ${parentId}${status ? ` ${status}` : ''}`);
}

async function closeStatus(stack: Stack, workflowId: string): Promise<string> {
  return (await stack.client.workflow.getHandle(workflowId).describe()).status.name;
}

describe('delegate', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  it('runs three children side by side; the parent keeps only their answers, and their spend rolls up exactly', { timeout: 3 * MINUTE }, async () => {
    await stack.withWorker({ latencyMs: 300 }, async () => {
      const parentId = 'deleg-three';
      await stack.sessions.start({ task: delegatingTask('survey', ['A', 'B', 'C'], 4), model: 'agentd-sim' }, { sessionId: parentId });
      const parent: SessionResult = await stack.sessions.result(parentId);
      assert.equal(parent.outcome, 'finished');

      const state = parent.finalState!;
      const childIds = state.delegation!.children.map((child) => child.sessionId);
      assert.equal(childIds.length, 3);
      assert.deepEqual(state.delegation!.children.map((child) => child.status), ['completed', 'completed', 'completed']);

      // Side by side: every child started before any ended, and together they took far less than one after another.
      const spans = await Promise.all(
        childIds.map(async (id) => {
          const described = await stack.client.workflow.getHandle(id).describe();
          return { start: described.startTime.getTime(), close: described.closeTime!.getTime() };
        }),
      );
      assert.ok(Math.max(...spans.map((span) => span.start)) < Math.min(...spans.map((span) => span.close)), 'all three ran at once');
      const wall = Math.max(...spans.map((span) => span.close)) - Math.min(...spans.map((span) => span.start));
      const serial = spans.reduce((sum, span) => sum + span.close - span.start, 0);
      assert.ok(wall < 0.6 * serial, `children took ${wall} ms together, ${serial} ms one after another`);
      console.log(`delegate: three children ran side by side in ${wall} ms; one after another they would take ${serial} ms (${(wall / serial).toFixed(2)}×)`);

      // The parent's context grew by the answers only: no child's tool output is in its transcript.
      const parentText = (await stack.store.list(parentId)).map((row) => messageText(row.message)).join('\n');
      const children: SessionResult[] = [];
      for (const id of childIds) {
        const child: SessionResult = await stack.sessions.result(id);
        children.push(child);
        assert.equal(child.outcome, 'finished');
        assert.ok(parentText.includes(child.answer), `the parent read ${id}'s answer`);
        const outputs = (await stack.store.list(id)).filter((row) => row.message.role === 'tool' && messageText(row.message).length > 200);
        assert.ok(outputs.length > 0, `${id} had tool output of its own`);
        for (const row of outputs) assert.ok(!parentText.includes(messageText(row.message)), `${id}'s seq ${row.seq} stayed out of the parent`);
        // Its files were copied where the parent can read them, each as the child left it.
        const own = path.join(stack.workspaceRoot, id);
        const made = readdirSync(own, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
        assert.ok(made.length > 0, `${id} made files`);
        assert.match(parentText, new RegExp(`files \\(copied to delegates/${id.replace(/\./g, '\\.')}/\\)`));
        for (const file of made) {
          const relative = path.relative(own, path.join(file.parentPath, file.name));
          assert.equal(readFileSync(path.join(stack.workspaceRoot, parentId, 'delegates', id, relative), 'utf8'), readFileSync(path.join(own, relative), 'utf8'), `${id}/${relative} copied`);
        }
      }
      const delegates = state.spend.delegates!;
      const sum = (pick: (child: SessionResult) => number) => children.reduce((total, child) => total + pick(child), 0);
      assert.equal(delegates.promptTokens, sum((child) => child.spend!.agent.promptTokens + child.spend!.summary.promptTokens));
      assert.equal(delegates.completionTokens, sum((child) => child.spend!.agent.completionTokens + child.spend!.summary.completionTokens));
      assert.equal(delegates.calls, sum((child) => child.spend!.agent.calls + child.spend!.summary.calls));
      assert.equal(state.spend.totalTokens, state.spend.agent.promptTokens + state.spend.agent.completionTokens + delegates.promptTokens + delegates.completionTokens);
      assert.ok(Math.abs(state.spend.costUsd - (state.spend.agent.costUsd + sum((child) => child.spend!.costUsd))) < 1e-12, 'cost rolls up');

      const shown = await agentd('status', parentId);
      assert.equal(shown.code, 0, shown.stderr);
      for (const id of childIds) assert.match(shown.stdout, new RegExp(`${id.replace(/\./g, '\\.')}  completed \\(finished\\)`));
      // The list finds the tree in Temporal's visibility index: the children by parent, each under it in the table.
      const listed = await eventually(async () => {
        const sessions = JSON.parse((await agentd('list', '--parent', parentId, '--json')).stdout) as Array<{ sessionId: string; model?: string }>;
        return sessions.length === 3 ? sessions : undefined;
      }, 'the children listed by parent');
      assert.deepEqual(listed.map((session) => session.model), ['agentd-sim', 'agentd-sim', 'agentd-sim'], 'children start with the attributes a session starts with');
      const table = (await agentd('list')).stdout.split('\n');
      const parentRow = table.findIndex((line) => line.startsWith(`${parentId} `));
      assert.deepEqual(table.slice(parentRow + 1, parentRow + 4).map((line) => line.split(/\s+/)[1]).sort(), [...childIds].sort());
    });
  });

  it('copies the files a child made into the parent workspace; a call with bad arguments is refused, naming them', { timeout: 2 * MINUTE }, async () => {
    await stack.withWorker({}, async () => {
      const parentId = 'deleg-files';
      const childTask = 'write the report\n[sim call write_file {"path":"report.md","content":"FINDINGS-42"}]';
      const task = `[sim steps=1] get a report\n[sim call delegate ${JSON.stringify({ task: childTask })}]\n[sim also delegate {"goal":"no task given"}]`;
      await stack.sessions.start({ task, model: 'agentd-sim' }, { sessionId: parentId });
      const parent: SessionResult = await stack.sessions.result(parentId);
      assert.equal(parent.finalState!.delegation!.childrenStarted, 1);
      const refused = (await stack.store.list(parentId)).filter((row) => row.message.role === 'tool' && messageText(row.message).startsWith('error: delegate refused'));
      assert.match(messageText(refused[0]!.message), /invalid arguments for delegate: task: /);
      const [child] = parent.finalState!.delegation!.children;
      const copied = path.join(stack.workspaceRoot, parentId, 'delegates', child!.sessionId, 'report.md');
      assert.equal(readFileSync(copied, 'utf8'), 'FINDINGS-42');
    });
  });

  it("cuts a child's long answer to answerCapChars and writes it whole where the parent can read it", { timeout: 2 * MINUTE }, async () => {
    await stack.withWorker({}, async () => {
      const parentId = 'deleg-long';
      // Real models answer long: this child's answer is 32,000 characters.
      const long = Array.from({ length: 4000 }, (_, index) => `F${index} `).join('').padEnd(32_000, '.');
      const childTask = `answer at length\n[sim call finish ${JSON.stringify({ answer: long })}]`;
      const task = `[sim steps=1] get the long answer\n[sim call delegate ${JSON.stringify({ task: childTask })}]`;
      await stack.sessions.start({ task, model: 'agentd-sim' }, { sessionId: parentId });
      const parent: SessionResult = await stack.sessions.result(parentId);
      const [child] = parent.finalState!.delegation!.children;
      const result = (await stack.store.list(parentId)).find((row) => row.message.role === 'tool' && messageText(row.message).startsWith(`child session ${child!.sessionId}`));
      const text = messageText(result!.message);
      assert.ok(text.length < 8000 + 500, `the parent's result is ${text.length} characters`);
      assert.match(text, new RegExp(`answer \\(32000 characters, cut to 8000; read_file delegates/${child!.sessionId.replace(/\./g, '\\.')}\\.answer\\.md has it whole\\)`));
      assert.ok(text.includes('F0 F1 F2') && text.includes('....'), 'head and tail kept');
      const whole = readFileSync(path.join(stack.workspaceRoot, parentId, 'delegates', `${child!.sessionId}.answer.md`), 'utf8');
      assert.equal(whole, long);
    });
  });

  it('takes a model that writes the call loosely and a child that answers in plain text without finish', { timeout: 2 * MINUTE }, async () => {
    // Not the simulator: a real model's habits. The parent adds a field of its own and writes the tool
    // list as one string; the child never calls finish and answers, half refusing, in plain text.
    const childAnswer = 'I will not run commands here, but reading the tree I count 42 files.';
    const endpoint = await serveScriptedReplies((_, messages) => {
      const task = messages[1]?.content ?? '';
      if (task.startsWith('CHILD')) return { content: childAnswer };
      if (messages.some((message) => message.role === 'tool')) return { content: 'The helper counted 42 files.' };
      const args = { task: 'CHILD: count the files', tools: 'read_file, list_files', rationale: 'a field the schema does not have' };
      return { content: null, tool_calls: [{ id: 'call_loose_1', type: 'function', function: { name: 'delegate', arguments: JSON.stringify(args) } }] };
    });
    try {
      await stack.runWorker({ model: createModelClient({ baseURL: endpoint.baseURL }) }, async () => {
        await stack.sessions.start({ task: 'PARENT: have a helper count the files', model: 'agentd-sim' }, { sessionId: 'deleg-loose' });
        const parent: SessionResult = await stack.sessions.result('deleg-loose');
        assert.equal(parent.outcome, 'finished');
        const [child] = parent.finalState!.delegation!.children;
        assert.equal(child?.status, 'completed');
        const childRequest = endpoint.requests.findIndex((messages) => messages[1]?.content?.startsWith('CHILD'));
        assert.deepEqual(endpoint.offeredTools[childRequest], ['read_file', 'list_files', 'finish'], 'the child was offered the tools named in the string, and finish');
        const result = (await stack.store.list('deleg-loose')).find((row) => row.message.role === 'tool');
        assert.match(messageText(result!.message), new RegExp(`^child session ${child!.sessionId.replace(/\./g, '\\.')} ended \\(finished\\) after 1 step\\(s\\), 110 tokens, \\$0\\.\\d{4}\\.\nanswer:\n${childAnswer}\nfiles: none$`));
        assert.equal(parent.finalState!.spend.delegates?.promptTokens, 100, "the child's one call rolled up");
      });
    } finally {
      await endpoint.stop();
    }
  });

  it('refuses past maxChildrenPerStep and at maxDepth, with the reason for the model', { timeout: 2 * MINUTE }, async () => {
    await stack.withWorker({}, async () => {
      const parentId = 'deleg-limits';
      await stack.sessions.start(
        { task: delegatingTask('limits', ['A', 'B', 'C'], 1), model: 'agentd-sim', delegation: { maxChildrenPerStep: 2, maxDepth: 1 } },
        { sessionId: parentId },
      );
      const parent: SessionResult = await stack.sessions.result(parentId);
      assert.equal(parent.finalState!.delegation!.childrenStarted, 2);
      const rows = await stack.store.list(parentId);
      const refused = rows.filter((row) => row.message.role === 'tool' && messageText(row.message).startsWith('error: delegate refused'));
      assert.equal(refused.length, 1);
      assert.match(messageText(refused[0]!.message), /maxChildrenPerStep/);
      // A child at maxDepth is not offered the tool at all.
      const [first] = parent.finalState!.delegation!.children;
      const childState: SessionState = (await stack.sessions.result(first!.sessionId)).finalState!;
      assert.deepEqual(childState.delegation, { depth: 1, parentSessionId: parentId, childrenStarted: 0, children: [] });
    });
  });

  it('a child stopped by the step limit its call named answers with its limit, and the parent reads it', { timeout: 2 * MINUTE }, async () => {
    await stack.withWorker({}, async () => {
      const parentId = 'deleg-limit';
      const call = JSON.stringify({ task: 'a long survey [sim steps=20]', maxSteps: 2 });
      await stack.sessions.start({ task: `[sim steps=1] bounded help\n[sim call delegate ${call}]`, model: 'agentd-sim' }, { sessionId: parentId });
      const parent: SessionResult = await stack.sessions.result(parentId);
      const [child] = parent.finalState!.delegation!.children;
      assert.deepEqual([child?.outcome, child?.steps], ['step_limit', 2]);
      const result = (await stack.store.list(parentId)).find((row) => row.message.role === 'tool' && messageText(row.message).startsWith('child session'));
      assert.match(messageText(result!.message), /ended \(step_limit\) after 2 step\(s\), .*\nanswer:\nstopped after 2 steps \(maxSteps 2\)\n/);
    });
  });

  it('a child that fails or is cancelled on its own is an error result, and the parent goes on', { timeout: 2 * MINUTE }, async () => {
    await stack.withWorker({ latencyMs: 300 }, async () => {
      const parentId = 'deleg-fail';
      await stack.sessions.start({ task: delegatingTask('doomed', ['A', 'B'], 200), model: 'agentd-sim' }, { sessionId: parentId });
      const [first, second] = await childrenOf(stack, parentId, 2, 'running');
      // The parent lists a child once it asked for it; the server creates it a moment later.
      for (const child of [first!, second!]) await eventually(async () => ((await closeStatus(stack, child)) === 'RUNNING' ? true : undefined), `${child} started`);
      await stack.client.workflow.getHandle(first!).terminate('an operator pulled the plug');
      await stack.sessions.handle(second!).cancel();
      const parent: SessionResult = await stack.sessions.result(parentId);
      assert.equal(parent.outcome, 'finished', 'the parent finished its own turn');
      const results = (await stack.store.list(parentId)).filter((row) => row.message.role === 'tool').map((row) => messageText(row.message));
      assert.ok(results.includes(`error: child session ${first} failed: it was terminated (by an operator or by Temporal)`), results.join('\n'));
      assert.ok(results.includes(`error: child session ${second} failed: it was cancelled by an operator`), results.join('\n'));
      assert.deepEqual(parent.finalState!.delegation!.children.map((child) => child.status), ['failed', 'cancelled']);
    });
  });

  it('cancelling the parent cancels all three children', { timeout: 2 * MINUTE }, async () => {
    await stack.withWorker({ latencyMs: 500 }, async () => {
      const parentId = 'deleg-cancel';
      await stack.sessions.start({ task: delegatingTask('long', ['A', 'B', 'C'], 200), model: 'agentd-sim' }, { sessionId: parentId });
      const childIds = await childrenOf(stack, parentId, 3, 'running');
      await eventually(async () => ((await stack.sessions.state(childIds[2]!)).step >= 2 ? true : undefined), 'the children at work');
      await stack.sessions.handle(parentId).cancel();
      for (const id of [parentId, ...childIds]) {
        await eventually(async () => ((await closeStatus(stack, id)) === 'CANCELLED' ? true : undefined), `${id} cancelled`);
      }
    });
  });

  it('interrupting the parent cuts its children off and the parent waits for a message', { timeout: 2 * MINUTE }, async () => {
    await stack.withWorker({ latencyMs: 500 }, async () => {
      const parentId = 'deleg-interrupt';
      await stack.sessions.start({ task: delegatingTask('long', ['A', 'B'], 200), model: 'agentd-sim' }, { sessionId: parentId });
      const childIds = await childrenOf(stack, parentId, 2, 'running');
      const interrupted = await agentd('interrupt', parentId, '--reason', 'wrong plan');
      assert.equal(interrupted.code, 0, interrupted.stderr);
      const state: SessionState = await stack.sessions.state(parentId);
      assert.equal(state.status, 'waiting_for_message');
      for (const id of childIds) assert.equal(await closeStatus(stack, id), 'CANCELLED');
      assert.deepEqual(state.delegation!.children.map((child) => child.status), ['cancelled', 'cancelled']);
      await stack.sessions.handle(parentId).cancel();
    });
  });

  it('a worker killed mid-child loses nothing and runs nothing twice', { timeout: 3 * MINUTE }, async () => {
    const simulator = await startSimulator({ latencyMs: 200 });
    const env = {
      temporalAddress: stack.temporal.address,
      storeFile: stack.storeFile,
      workspaceRoot: stack.workspaceRoot,
      modelBaseURL: `http://127.0.0.1:${simulator.port}/v1`,
    };
    let worker = startWorkerProcess(env);
    try {
      const parentId = 'deleg-kill';
      await stack.sessions.start({ task: delegatingTask('crash', ['A', 'B'], 8), model: 'agentd-sim' }, { sessionId: parentId });
      const childIds = await eventually(async () => {
        const ids = (await stack.sessions.state(parentId)).delegation?.children.map((child) => child.sessionId) ?? [];
        if (ids.length < 2) return undefined;
        const steps = await Promise.all(ids.map(async (id) => (await stack.store.list(id)).filter((row) => row.message.role === 'assistant').length));
        return steps.every((step) => step >= 3) ? ids : undefined;
      }, 'both children three steps in');
      const dead = await worker.stop('SIGKILL');
      assert.equal(dead.code, null, 'the worker died of the signal');
      worker = startWorkerProcess(env);

      const parent: SessionResult = await stack.sessions.result(parentId);
      assert.equal(parent.outcome, 'finished');
      for (const id of childIds) {
        const child: SessionResult = await stack.sessions.result(id);
        assert.equal(child.outcome, 'finished');
        assert.equal(child.steps, 9, `${id}: eight steps and the finish call, none lost or repeated`);
        const rows = await stack.store.list(id);
        const ids = rows.flatMap((row) => (row.message.role === 'tool' ? [row.message.tool_call_id] : []));
        assert.equal(new Set(ids).size, ids.length, `${id}: every tool call has one result`);
      }
      assert.deepEqual(parent.finalState!.delegation!.children.map((child) => child.status), ['completed', 'completed']);
    } finally {
      await worker.stop();
      await simulator.stop();
    }
  });
});
