/**
 * The two Temporal servers the scale benchmark runs on: the dev server of the benchmark's stack
 * (the Temporal CLI, SQLite, in one process) and the real cluster of scripts/temporal-cluster.sh
 * (the Temporal server on PostgreSQL), each with the processes whose CPU is the server's.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { SessionClient } from '../../src/client/sessionClient';
import { connectCluster, terminateLeftovers } from '../../harness/cluster';
import { repoRoot } from '../../harness/repo';
import type { Stack } from '../../harness/stack';
import { withChildren } from '../lib/proc';

const run = promisify(execFile);

export interface ScaleServer {
  readonly name: string;
  readonly address: string;
  readonly client: Client;
  readonly sessions: SessionClient;
  /** The transcript store its workers use (AGENTD_STORE). */
  readonly store: string;
  /** The Temporal server's process. */
  readonly serverPid: number;
  /** Its database's processes, when the database is not inside the server (PostgreSQL: the postmaster and its backends). */
  databasePids(): readonly number[];
  /** Its Prometheus endpoint, where it serves one (the cluster). */
  readonly metricsUrl?: string;
  close(): Promise<void>;
}

export function devServerOf(stack: Stack): ScaleServer {
  return {
    name: 'dev server',
    address: stack.temporal.address,
    client: stack.client,
    sessions: stack.sessions,
    store: stack.storeFile,
    serverPid: stack.temporal.server.pid,
    databasePids: () => [],
    close: async () => {},
  };
}

const clusterScript = () => `${repoRoot()}/scripts/temporal-cluster.sh`;

function exported(output: string, name: string): string {
  const value = new RegExp(`^export ${name}=(.+)$`, 'm').exec(output)?.[1];
  if (value === undefined) throw new Error(`scripts/temporal-cluster.sh start printed no ${name}`);
  return value;
}

/**
 * The cluster, started when it is not running (built on first use: minutes), on databases emptied
 * first, and stopped again at close only if this run started it. A cluster already running keeps its
 * databases, and the log says so: its figures are then not comparable with a fresh one's.
 */
export async function clusterServer(log: (line: string) => void): Promise<ScaleServer> {
  const wasRunning = await run('bash', [clusterScript(), 'status']).then(
    () => true,
    () => false,
  );
  if (wasRunning) {
    log('the Temporal cluster is running already: measured on its databases as they are, not fresh ones');
  } else {
    log('starting the Temporal cluster on empty databases (scripts/temporal-cluster.sh reset, then start)');
    await run('bash', [clusterScript(), 'reset']);
  }
  const started = await run('bash', [clusterScript(), 'start'], { maxBuffer: 16 * 1024 * 1024 });
  const pids = Object.fromEntries(
    (await run('bash', [clusterScript(), 'pids'])).stdout
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  const serverPid = Number(pids.server);
  const postmasterPid = Number(pids.postgres);
  const cluster = await connectCluster(exported(started.stdout, 'AGENTD_TEST_CLUSTER_ADDRESS'));
  const leftovers = await terminateLeftovers(cluster.client);
  if (leftovers > 0) log(`terminated ${leftovers} session(s) an earlier run left open on the cluster`);
  return {
    name: 'cluster',
    address: cluster.address,
    client: cluster.client,
    sessions: cluster.sessions,
    store: exported(started.stdout, 'AGENTD_TEST_CLUSTER_STORE'),
    serverPid,
    databasePids: () => withChildren(postmasterPid),
    metricsUrl: `http://${exported(started.stdout, 'AGENTD_TEST_CLUSTER_METRICS')}/metrics`,
    async close() {
      await cluster.close();
      if (!wasRunning) await run('bash', [clusterScript(), 'stop']);
    },
  };
}
