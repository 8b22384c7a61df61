/**
 * PostgreSQL for tests: the server named by AGENTD_TEST_POSTGRES_URL, and a fresh database on it
 * per test run, so reruns start clean and parallel files never share tables.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The test server's URL. Without it, a CI run fails (the store suite must cover PostgreSQL there);
 * elsewhere the caller skips, and this says so loudly.
 */
export function testPostgresUrl(what: string): string | undefined {
  const url = process.env.AGENTD_TEST_POSTGRES_URL;
  if (url) return url;
  if (process.env.CI === 'true') {
    throw new Error(`AGENTD_TEST_POSTGRES_URL is not set, and CI=true: ${what} must run on PostgreSQL in CI`);
  }
  process.stderr.write(
    `\n*** SKIPPING ${what} on PostgreSQL: AGENTD_TEST_POSTGRES_URL is not set ` +
      '(eval "$(scripts/test-postgres.sh start)" to get one) ***\n\n',
  );
  return undefined;
}

export interface TestDatabase {
  /** The server URL with this database's name in its path. */
  readonly url: string;
  readonly name: string;
  /** Drops the database, ending any connection still open on it. */
  drop(): Promise<void>;
}

export async function createTestDatabase(serverUrl: string, label: string): Promise<TestDatabase> {
  const name = `agentd_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer(serverUrl, (client) => dropWhenClosed(client, name)),
  };
}

/** How long a drop waits for the database's connections to finish closing before it ends them. */
const CLOSING_WAIT_MS = 3_000;

/**
 * Drops `name` once no connection is on it, or after CLOSING_WAIT_MS with FORCE. A pool's `end()`
 * can return while its connections are still closing; ending those by force sends their clients a
 * "terminating connection" error after the pool has let them go, and that error has no listener.
 */
async function dropWhenClosed(client: pg.Client, name: string): Promise<void> {
  const deadline = Date.now() + CLOSING_WAIT_MS;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ open: string }>('SELECT count(*) AS open FROM pg_stat_activity WHERE datname = $1', [name]);
    if (rows[0]?.open === '0') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

async function onServer(serverUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
