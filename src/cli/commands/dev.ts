/**
 * `agentd dev`: a local Temporal dev server in the foreground, its state in a SQLite file so that
 * sessions survive a restart. Builds the Temporal CLI first if this machine has none.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { startDevServer, type DevServer } from '../../devServer/devServer';
import { DevServerError } from '../../devServer/devServerError';
import { TemporalCliError, ensureTemporalCli } from '../../devServer/temporalCli';
import { ExitCode, UsageError, type Command } from '../command';

const DEFAULTS = { port: 7233, uiPort: 8233, dbFile: '.agentd/temporal.db' } as const;

const help = `usage: agentd dev [--port <n>] [--ui-port <n>] [--db-file <path>] [--headless]

Runs a local Temporal dev server in the foreground until Ctrl-C (or SIGTERM), then stops it
cleanly. Server state lives in a SQLite file, so running sessions survive a restart; server logs
go to a .log file next to it. The Temporal CLI is taken from $TEMPORAL_CLI, PATH or
~/.cache/agentd/bin; when there is none it is installed there once (see agentd setup).

Options:
  --port <n>         gRPC port for clients and workers (default ${DEFAULTS.port}; 0 = any free port)
  --ui-port <n>      Web UI port (default ${DEFAULTS.uiPort}; 0 = any free port)
  --db-file <path>   SQLite file for server state (default ${DEFAULTS.dbFile})
  --headless         No Web UI
  -h, --help         Show this help
`;

export const devCommand: Command = {
  name: 'dev',
  summary: 'Run a local Temporal dev server (SQLite-backed) until Ctrl-C',
  help,
  async run(argv: string[]): Promise<number> {
    const flags = parseFlags(argv);
    if (flags === 'help') {
      process.stdout.write(help);
      return ExitCode.ok;
    }

    let temporalCli: string;
    try {
      temporalCli = await ensureTemporalCli({ onProgress: printProgress });
    } catch (err) {
      if (err instanceof TemporalCliError) return fail(err.message);
      throw err;
    }

    // Listen before starting, so a Ctrl-C during startup still ends in a clean stop. Only the
    // first signal is ours: a second one gets Node's default and ends us at once, and the
    // server follows (it is started to die with its parent).
    const stopRequested = onceSignalled(['SIGINT', 'SIGTERM']);
    try {
      let server: DevServer;
      try {
        server = await startDevServer({
          temporalCli,
          dbFile: flags.dbFile,
          port: flags.port,
          ...(flags.uiPort === undefined ? {} : { uiPort: flags.uiPort }),
          logFile: logFileFor(flags.dbFile),
          onProgress: printProgress,
        });
      } catch (err) {
        // Interrupted while starting: the failure is the interruption, not worth reporting.
        if (err instanceof DevServerError && stopRequested.signal !== undefined) return ExitCode.ok;
        if (err instanceof DevServerError) return fail(err.message);
        throw err;
      }
      printRunning(server);

      const outcome = await Promise.race([
        stopRequested.promise.then((signal) => ({ signal }) as const),
        server.exited.then((exit) => ({ exit }) as const),
      ]);
      if ('exit' in outcome) {
        const how = outcome.exit.signal !== null ? `was killed by ${outcome.exit.signal}` : `exited with code ${outcome.exit.code}`;
        return fail(`The Temporal dev server ${how}; see ${logFileFor(flags.dbFile)}`);
      }
      printProgress(`Got ${outcome.signal}; stopping the Temporal dev server…`);
      await server.stop();
      printProgress('Stopped.');
      return ExitCode.ok;
    } finally {
      stopRequested.dispose();
    }
  },
};

interface DevFlags {
  readonly port: number;
  /** Undefined when headless. */
  readonly uiPort: number | undefined;
  readonly dbFile: string;
}

function parseFlags(argv: string[]): DevFlags | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        'ui-port': { type: 'string' },
        'db-file': { type: 'string' },
        headless: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (err) {
    // parseArgs' own messages already name the offending flag or argument.
    throw new UsageError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  if (values.help === true) return 'help';
  if (values.headless === true && values['ui-port'] !== undefined) {
    throw new UsageError('--ui-port and --headless cannot be used together');
  }
  const dbFile = values['db-file'] ?? DEFAULTS.dbFile;
  if (dbFile.trim() === '') throw new UsageError('--db-file must not be empty');
  return {
    port: parsePort('--port', values.port, DEFAULTS.port),
    uiPort: values.headless === true ? undefined : parsePort('--ui-port', values['ui-port'], DEFAULTS.uiPort),
    dbFile: path.resolve(dbFile),
  };
}

function parsePort(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`${flag} must be a port number from 0 to 65535, got "${raw}"`);
  return port;
}

/** `.agentd/temporal.db` → `.agentd/temporal.log`. */
function logFileFor(dbFile: string): string {
  const parsed = path.parse(dbFile);
  return path.join(parsed.dir, `${parsed.name}.log`);
}

interface SignalWait {
  readonly promise: Promise<NodeJS.Signals>;
  /** The signal received, once there is one. */
  readonly signal: NodeJS.Signals | undefined;
  dispose(): void;
}

/** The first of `signals`, with the listeners removable so nothing outlives the command. */
function onceSignalled(signals: readonly NodeJS.Signals[]): SignalWait {
  let received: NodeJS.Signals | undefined;
  let handler: (signal: NodeJS.Signals) => void = () => {};
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    handler = (signal) => {
      for (const s of signals) process.removeListener(s, handler);
      received = signal;
      resolve(signal);
    };
  });
  for (const signal of signals) process.on(signal, handler);
  return {
    promise,
    get signal() {
      return received;
    },
    dispose: () => {
      for (const signal of signals) process.removeListener(signal, handler);
    },
  };
}

function printRunning(server: DevServer): void {
  const lines = [
    'Temporal dev server running',
    `  address:  ${server.address}`,
    `  Web UI:   ${server.uiUrl ?? '(headless)'}`,
    `  db file:  ${server.dbFile}`,
    `  log file: ${logFileFor(server.dbFile)}`,
    'Press Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printProgress(line: string): void {
  process.stderr.write(`${line}\n`);
}

function fail(message: string): number {
  process.stderr.write(`agentd dev: ${message}\n`);
  return ExitCode.failure;
}
