/**
 * A throwaway Temporal dev server for node:test files: fresh SQLite file in a new temp folder, free
 * port. Call startTestTemporal() in `before` and stop() in `after`.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevServer, type DevServer, type DevServerOptions } from '../src/devServer/devServer';
import { ensureTemporalCli } from '../src/devServer/temporalCli';

export interface TestTemporal {
  readonly server: DevServer;
  /** `host:port` for Connection.connect / NativeConnection.connect. */
  readonly address: string;
  /** Stops the server and deletes its temp folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options a test may override; the db file and the port are always fresh. */
export type TestTemporalOptions = Omit<DevServerOptions, 'dbFile' | 'port' | 'temporalCli'>;

export async function startTestTemporal(options: TestTemporalOptions = {}): Promise<TestTemporal> {
  // Builds the CLI on a machine that lacks it; progress goes to stderr so a slow first run is explained.
  const temporalCli = await ensureTemporalCli({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agentd-temporal-'));
  let server: DevServer;
  try {
    server = await startDevServer({ ...options, temporalCli, dbFile: path.join(dir, 'temporal.db') });
  } catch (err) {
    await fs.rm(dir, { recursive: true, force: true });
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    server,
    address: server.address,
    stop: () =>
      (stopping ??= (async () => {
        await server.stop();
        await fs.rm(dir, { recursive: true, force: true });
      })()),
  };
}
