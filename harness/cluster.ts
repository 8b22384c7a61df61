/**
 * The real Temporal cluster of scripts/temporal-cluster.sh (the Temporal server on PostgreSQL, SQL
 * visibility) for the tests and benchmarks that must meet it: its address, a client on it, a
 * restart, and a clean slate in a cluster that outlives test runs.
 */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { SessionClient } from '../src/client/sessionClient';
import { inBatches } from './batches';
import { WORKFLOW_TYPE } from '../src/session/definitions';
import { repoRoot } from './repo';

const run = promisify(execFile);

/** The cluster's frontend. Without it a CI run fails (the cluster suite must run there); elsewhere the caller skips. */
export function testClusterAddress(what: string): string | undefined {
  const address = process.env.AGENTD_TEST_CLUSTER_ADDRESS;
  if (address) return address;
  if (process.env.CI === 'true') throw new Error(`AGENTD_TEST_CLUSTER_ADDRESS is not set, and CI=true: ${what} must run on the real cluster in CI`);
  process.stderr.write(`\n*** SKIPPING ${what}: AGENTD_TEST_CLUSTER_ADDRESS is not set (eval "$(scripts/temporal-cluster.sh start)" to get one) ***\n\n`);
  return undefined;
}

export interface ClusterClient {
  readonly address: string;
  readonly client: Client;
  readonly sessions: SessionClient;
  close(): Promise<void>;
}

export async function connectCluster(address: string): Promise<ClusterClient> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  return { address, client, sessions: new SessionClient(client), close: () => connection.close() };
}

/**
 * Stops the Temporal server and starts it again on the same databases (scripts/temporal-cluster.sh
 * restart); resolves once it answers health checks and its namespace again. How long it was away, in ms.
 */
export async function restartCluster(): Promise<number> {
  const started = Date.now();
  await run('bash', [`${repoRoot()}/scripts/temporal-cluster.sh`, 'restart'], { env: process.env });
  return Date.now() - started;
}

/** Terminations in flight at once: a killed benchmark leaves a thousand sessions open. */
const TERMINATE_BATCH = 50;
/** How long clearing them may take. */
const LEFTOVERS_LIMIT_MS = 180_000;

/**
 * The cluster outlives test runs: sessions a killed run left open would be taken up by this run's
 * workers, against a store that never heard of them. They are terminated first, until the index
 * lists none. A server just started under a thousand of them refuses requests for a while
 * (RESOURCE_EXHAUSTED, its persistence rate limit), so a refused listing is tried again, and the
 * index, which lags the terminations, is read again until it agrees. The count is of sessions
 * this call terminated.
 */
export async function terminateLeftovers(client: Client): Promise<number> {
  const deadline = Date.now() + LEFTOVERS_LIMIT_MS;
  let terminated = 0;
  for (;;) {
    const open = await runningSessions(client).catch((error: unknown) => {
      if (Date.now() > deadline) throw error;
      return undefined;
    });
    if (open?.length === 0) return terminated;
    if (Date.now() > deadline) throw new Error(`sessions an earlier run left open on the cluster are still running after ${LEFTOVERS_LIMIT_MS / 1000} s`);
    const done = await inBatches(open ?? [], TERMINATE_BATCH, ({ workflowId, runId }) =>
      client.workflow
        .getHandle(workflowId, runId)
        .terminate('left open by an earlier test run')
        .then(() => 1)
        .catch(() => 0),
    );
    terminated += done.reduce((sum: number, one) => sum + one, 0);
    await sleep(1000);
  }
}

async function runningSessions(client: Client): Promise<Array<{ workflowId: string; runId: string }>> {
  const open: Array<{ workflowId: string; runId: string }> = [];
  for await (const execution of client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'` })) {
    open.push({ workflowId: execution.workflowId, runId: execution.runId });
  }
  return open;
}
