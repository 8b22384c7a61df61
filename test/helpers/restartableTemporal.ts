/**
 * A test dev server that can be stopped and started again on the same SQLite file and port, the
 * way an operator restarts Temporal under running workflows. Usable wherever a TestTemporal is.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevServer, type DevServer } from '../../src/devServer/devServer';
import { ensureTemporalCli } from '../../src/devServer/temporalCli';
import type { TestTemporal, TestTemporalOptions } from '../../harness/temporal';

export interface RestartableTemporal extends TestTemporal {
  /** Stops the server (SIGTERM, as `temporal server start-dev` gets on a restart), waits `downMs`, starts it again. */
  restart(downMs?: number): Promise<{ readonly stoppedInMs: number; readonly startedInMs: number }>;
}

export async function startRestartableTemporal(options: TestTemporalOptions = {}): Promise<RestartableTemporal> {
  const temporalCli = await ensureTemporalCli({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agentd-temporal-restart-'));
  const dbFile = path.join(dir, 'temporal.db');
  let server: DevServer;
  try {
    server = await startDevServer({ ...options, temporalCli, dbFile });
  } catch (err) {
    await fs.rm(dir, { recursive: true, force: true });
    throw err;
  }
  const address = server.address;
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  let stopping: Promise<void> | undefined;
  return {
    get server() {
      return server;
    },
    address,
    async restart(downMs = 0) {
      const stopAt = Date.now();
      await server.stop();
      const stoppedInMs = Date.now() - stopAt;
      await new Promise((resolve) => setTimeout(resolve, downMs));
      const startAt = Date.now();
      // Same file and port: clients and workers dial the address they already know.
      server = await startDevServer({ ...options, temporalCli, dbFile, port });
      return { stoppedInMs, startedInMs: Date.now() - startAt };
    },
    stop: () =>
      (stopping ??= (async () => {
        await server.stop();
        await fs.rm(dir, { recursive: true, force: true });
      })()),
  };
}
