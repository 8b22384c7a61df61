/**
 * The real Temporal cluster of scripts/temporal-cluster.sh (the Temporal server on PostgreSQL, SQL
 * visibility) for the tests and benchmarks that must meet it: its address, a client on it, a
 * restart, and a clean slate in a cluster that outlives test runs.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { SessionClient } from '../src/client/sessionClient';
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

/**
 * The cluster outlives test runs: sessions a killed run left open would be taken up by this run's
 * workers, against a store that never heard of them. They are terminated first.
 */
export async function terminateLeftovers(client: Client): Promise<number> {
  let terminated = 0;
  for await (const execution of client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'` })) {
    await client.workflow.getHandle(execution.workflowId, execution.runId).terminate('left open by an earlier test run').catch(() => undefined);
    terminated += 1;
  }
  return terminated;
}
