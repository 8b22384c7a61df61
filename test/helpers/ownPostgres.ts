/**
 * A PostgreSQL server of the test's own (own data dir, own loopback port), so a test may stop and
 * start it under running workers without touching the shared server of AGENTD_TEST_POSTGRES_URL.
 * Built from the Debian server binaries, run as the `postgres` user when we are root (PostgreSQL
 * refuses to run as root), as scripts/test-postgres.sh does.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The newest /usr/lib/postgresql/<version>/bin holding initdb, or undefined. */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(root, newest, 'bin');
}

/** Binaries to use, or undefined (the caller skips) — except under CI=true, where their absence fails. */
export function ownPostgresBinaries(what: string): string | undefined {
  const bin = postgresBinaries();
  if (bin) return bin;
  if (process.env.CI === 'true') throw new Error(`PostgreSQL server binaries not found, and CI=true: ${what} must run (apt-get install postgresql)`);
  process.stderr.write(`\n*** SKIPPING ${what}: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql) ***\n\n`);
  return undefined;
}

export interface OwnPostgres {
  /** postgres://agentd@127.0.0.1:<port>/agentd */
  readonly url: string;
  readonly port: number;
  /** Fast shutdown (open connections are terminated), waiting until the server is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data dir, waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (if running) and removes its data dir. */
  destroy(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startOwnPostgres(bin: string): Promise<OwnPostgres> {
  const root = await mkdtemp(join(tmpdir(), 'agentd-own-pg-'));
  const dataDir = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  await mkdir(dataDir, { mode: 0o700 });
  if (asRoot) {
    // mkdtemp makes the parent 0700 for root; the postgres user must reach its data dir and socket.
    await chmod(root, 0o755);
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dataDir, Number(stdout.trim()), Number(gid.trim()));
  }
  const asOwner = (command: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args);

  const port = await freePort();
  await asOwner('initdb', ['-D', dataDir, '-U', 'agentd', '--auth=trust', '--no-sync']);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dataDir} -c fsync=off -c max_connections=100`;
  let running = false;
  const start = async () => {
    await asOwner('pg_ctl', ['-D', dataDir, '-l', join(dataDir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
    running = true;
  };
  const stop = async () => {
    await asOwner('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
    running = false;
  };
  await start();
  await asOwner('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'agentd', 'agentd']);
  return {
    url: `postgres://agentd@127.0.0.1:${port}/agentd`,
    port,
    stop,
    start,
    async destroy() {
      if (running) await stop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}
