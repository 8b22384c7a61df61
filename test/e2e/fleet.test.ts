/**
 * The fleet through Temporal's own index: sessions in every state on a real dev server, listed by
 * `agentd list` (one visibility query), by listSessions, and by the stock `temporal` CLI's query;
 * filters that would change the query are refused; a namespace without the attributes is named.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import { listSessions, type SessionSummary } from '../../src/client/sessionList';
import { findTemporalCli } from '../../src/devServer/temporalCli';
import { devServerSearchAttributeArgs, SESSION_SEARCH_ATTRIBUTES } from '../../src/session/searchAttributes';
import { repoRoot } from '../../harness/repo';
import { entryPoint, finished, spawnNode } from '../../harness/processes';
import { agentdOn, eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

const run = promisify(execFile);

const ids = (sessions: readonly { sessionId: string }[]) => sessions.map((session) => session.sessionId).sort();

describe('fleet list', () => {
  const stack = suiteStack();
  const agentd = agentdOn(stack);

  it('lists sessions in each state from their search attributes, through agentd and the stock CLI', async () => {
    await stack.withWorker({ latencyMs: 100 }, async () => {
      const start = (sessionId: string, task: string, extra: Record<string, number> = {}) =>
        stack.sessions.start({ task, model: 'agentd-sim', ...extra }, { sessionId });
      const busy = await start('fleet-running', 'long job [sim steps=400]', { maxSteps: 1000 });
      await start('fleet-waiting', 'one step then wait [sim steps=1]', { awaitMessagesSeconds: 600 });
      const paused = await start('fleet-paused-1', 'paused [sim steps=5]', { maxSteps: 1 });
      await start('fleet-paused-2', 'paused too [sim steps=5]', { maxSteps: 1 });
      await start('fleet-done', 'short job [sim steps=2]');
      const done = await stack.sessions.result('fleet-done');

      const byId = await eventually(async () => {
        const { sessions } = await listSessions(stack.client);
        const found = new Map(sessions.map((session) => [session.sessionId, session]));
        const settled =
          found.get('fleet-paused-1')?.status === 'waiting_for_approval' &&
          found.get('fleet-paused-2')?.status === 'waiting_for_approval' &&
          found.get('fleet-waiting')?.status === 'waiting_for_message' &&
          found.get('fleet-done')?.status === 'completed' &&
          (found.get('fleet-running')?.step ?? 0) > 0;
        return settled ? found : undefined;
      }, 'every session in its state in the index');
      assert.deepEqual(pick(byId.get('fleet-running')), { runStatus: 'RUNNING', status: 'running', model: 'agentd-sim' });
      assert.deepEqual(pick(byId.get('fleet-done')), { runStatus: 'COMPLETED', status: 'completed', model: 'agentd-sim' });
      assert.equal(byId.get('fleet-done')?.step, done.steps);
      assert.ok(byId.get('fleet-done')?.closedAt, 'a closed session has its close time');
      assert.equal(byId.get('fleet-paused-1')?.step, 1);
      const fill = byId.get('fleet-waiting')?.contextFill ?? -1;
      assert.ok(fill > 0 && fill <= 1, `context fill ${fill} in 0..1`);

      const listed = await agentd('list', '--status', 'waiting_for_approval', '--json');
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(ids(JSON.parse(listed.stdout) as SessionSummary[]), ['fleet-paused-1', 'fleet-paused-2']);
      const waiting = await agentd('list', '--status', 'waiting_for_message', '--json');
      assert.deepEqual(ids(JSON.parse(waiting.stdout) as SessionSummary[]), ['fleet-waiting']);
      const table = await agentd('list');
      assert.match(table.stdout, /^SESSION +STATUS +STEPS +CONTEXT +COST +MODEL +STARTED/);
      assert.match(table.stdout, /\nfleet-paused-1 +waiting_for_approval +1 +\d+% +\$0\.\d\d +agentd-sim +20\d\d-/);
      const limited = await agentd('list', '--limit', '2', '--json');
      assert.equal((JSON.parse(limited.stdout) as SessionSummary[]).length, 2);

      const cli = findTemporalCli() ?? assert.fail('no temporal CLI');
      const stock = await run(cli, ['workflow', 'list', '--address', stack.temporal.address, '--query', 'AgentdStatus="waiting_for_approval"', '-o', 'json']);
      const stockRows = JSON.parse(stock.stdout) as Array<{ execution: { workflowId: string } }>;
      assert.deepEqual(stockRows.map((row) => row.execution.workflowId).sort(), ['fleet-paused-1', 'fleet-paused-2']);

      // Approved, the session leaves the paused list and finishes.
      await stack.sessions.approve(paused.workflowId, { maxSteps: 10 });
      await stack.sessions.result(paused.workflowId);
      await eventually(async () => {
        const { sessions } = await listSessions(stack.client, { status: 'waiting_for_approval' });
        return ids(sessions).join() === 'fleet-paused-2' ? true : undefined;
      }, 'only fleet-paused-2 still paused');
      await busy.cancel();
      await eventually(async () => {
        const { sessions } = await listSessions(stack.client, { status: 'cancelled' });
        return ids(sessions).includes('fleet-running') ? true : undefined;
      }, 'the cancelled session listed as cancelled');

      // A change of status is written at once; a step's end only when the index is 30 s old. The
      // short session wrote its first step and its end; the long one far fewer upserts than steps.
      const doneUpserts = await sessionUpserts('fleet-done');
      assert.equal(doneUpserts.length, 2, doneUpserts.join(', '));
      assert.ok(doneUpserts[0]?.includes('AgentdStep') && !doneUpserts[0].includes('AgentdStatus'), doneUpserts.join(', '));
      assert.ok(doneUpserts[1]?.includes('AgentdStatus'), doneUpserts.join(', '));
      const history = (await busy.fetchHistory()).events ?? [];
      const ranMs = Number(history.at(-1)?.eventTime?.seconds ?? 0) * 1000 - Number(history[0]?.eventTime?.seconds ?? 0) * 1000;
      const busySteps = history.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').length;
      const busyUpserts = await sessionUpserts('fleet-running');
      assert.ok(busySteps >= 10, `${busySteps} steps`);
      // The first step, one refresh per 30 s begun, the cancellation; a second of slack for the clocks.
      assert.ok(busyUpserts.length <= 2 + Math.ceil((ranMs + 1000) / 30_000), `${busyUpserts.length} upserts in ${busySteps} steps over ${ranMs} ms: ${busyUpserts.join(', ')}`);
    });
  });

  /** The session's own upserts, each as the attributes it wrote; the SDK's (TemporalChangeVersion, one per patch) are left out. */
  async function sessionUpserts(sessionId: string): Promise<string[]> {
    const events = (await stack.client.workflow.getHandle(sessionId).fetchHistory()).events ?? [];
    return events
      .map((event) => Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}))
      .filter((names) => names.some((name) => name.startsWith('Agentd')))
      .map((names) => names.join('+'));
  }

  it('pages through the list with the token of the page before', async () => {
    const first = await listSessions(stack.client, { pageSize: 2 });
    assert.equal(first.sessions.length, 2);
    assert.ok(first.nextPageToken, 'more than two sessions: a token for the next page');
    const second = await listSessions(stack.client, { pageSize: 2, nextPageToken: first.nextPageToken });
    assert.ok(second.sessions.length > 0);
    assert.equal(ids([...first.sessions, ...second.sessions]).length, new Set(ids([...first.sessions, ...second.sessions])).size, 'no session on both pages');
  });

  it('refuses filter values that would change the query, naming the flag', async () => {
    const quote = await agentd('list', '--status', "running' OR WorkflowType != '");
    assert.equal(quote.code, 2, quote.stderr);
    assert.match(quote.stderr, /--status: must not contain quotes/);
    const model = await agentd('list', '--model', 'gpt"4');
    assert.equal(model.code, 2, model.stderr);
    assert.match(model.stderr, /--model: must not contain quotes/);
    const unknown = await agentd('list', '--status', 'sleeping');
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /--status: unknown status 'sleeping'; one of running, waiting_for_message, waiting_for_approval/);
    await assert.rejects(listSessions(stack.client, { model: "x' OR '1'='1" }), /model: must not contain quotes/);
  });

  it('the docker-compose namespace job creates the same attributes as the code defines', () => {
    const script = readFileSync(join(repoRoot(), 'deploy', 'temporal', 'create-namespace.sh'), 'utf8');
    const listed = /for attribute in ([^;]+);/.exec(script)?.[1]?.trim().split(/\s+/) ?? [];
    assert.deepEqual(listed, devServerSearchAttributeArgs().filter((arg) => arg !== '--search-attribute'));
  });

  it('names the missing attributes of a namespace without them, and registers them', async () => {
    const cli = findTemporalCli() ?? assert.fail('no temporal CLI');
    await run(cli, ['operator', 'namespace', 'create', '--address', stack.temporal.address, '--namespace', 'bare']);
    const env = { TEMPORAL_ADDRESS: stack.temporal.address, TEMPORAL_NAMESPACE: 'bare', AGENTD_STORE: stack.storeFile };
    const agentdBare = (...args: string[]) => finished(spawnNode(entryPoint('cli/main'), args, env));
    const check = await eventually(async () => {
      const result = await agentdBare('search-attributes');
      return result.code === 1 ? result : undefined;
    }, 'the new namespace answering');
    const names = SESSION_SEARCH_ATTRIBUTES.map((key) => key.name);
    assert.match(check.stderr, new RegExp(`namespace bare lacks ${names.join(', ')}`));
    assert.match(check.stdout, /^temporal operator search-attribute create --namespace bare --name AgentdStatus --type Keyword$/m);

    const startBare = await agentdBare('start', 'nowhere to list it [sim steps=1]');
    assert.equal(startBare.code, 1, startBare.stderr);
    assert.match(startBare.stderr, /namespace bare lacks the agentd search attributes AgentdStatus, .*agentd search-attributes --register/);

    const register = await agentdBare('search-attributes', '--register');
    assert.equal(register.code, 0, register.stderr);
    assert.match(register.stderr, /registered AgentdStatus, AgentdStep, AgentdContextFill, AgentdCostUsd, AgentdModel in namespace bare/);
    const { customAttributes } = await stack.client.connection.operatorService.listSearchAttributes({ namespace: 'bare' });
    assert.equal(customAttributes?.AgentdContextFill, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE);
    const again = await agentdBare('search-attributes');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /has every agentd search attribute/);
  });
});

function pick(summary: SessionSummary | undefined) {
  return summary && { runStatus: summary.runStatus, status: summary.status, model: summary.model };
}
