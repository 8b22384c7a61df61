/**
 * Starting and stopping a local Temporal dev server (`temporal server start-dev`) backed by a SQLite
 * file, for `agentd dev` and for tests. Nothing global is registered here: whoever starts a server
 * decides how signals and shutdown reach it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporalCliEnv } from './cliEnv';
import { DevServerError } from './devServerError';
import { freePort } from './freePort';
import { OutputTail, fileTail } from './outputTail';
import { dieWithParent } from './parentDeath';
import { keepPrivate, PRIVATE_FILE, withPrivateUmask } from './privateFiles';
import { delay, NotReady, notReadyError, waitUntilReady } from './readiness';
import { DEFAULT_NAMESPACE, serverArgs, serverDynamicConfig, serverPragmas, validate } from './serverArgs';
import { findTemporalCli } from './temporalCli';

export interface DevServerOptions {
  /** SQLite file holding all server state; reusing it across starts keeps workflows. Parent folder is created. */
  readonly dbFile: string;
  /** Front-end gRPC port; 0 or absent picks a free one. */
  readonly port?: number;
  /** Web UI port; absent runs headless, 0 picks a free one. */
  readonly uiPort?: number;
  /** Address to bind; default 127.0.0.1. */
  readonly ip?: string;
  /** Namespace to create and wait for; default 'default'. */
  readonly namespace?: string;
  /**
   * Extra dynamic config, passed as `--dynamic-config-value key=<JSON value>`, over the engine
   * tuning (ENGINE_TUNING.server.dynamicConfig), which applies unless a key here overrides it.
   */
  readonly dynamicConfig?: Readonly<Record<string, string | number | boolean>>;
  /** SQLite pragmas (`--sqlite-pragma name=value`) over ENGINE_TUNING.server.sqlitePragmas. */
  readonly sqlitePragmas?: Readonly<Record<string, string>>;
  /** File (appended to) for the server's stdout and stderr; otherwise a bounded tail is kept in memory. */
  readonly logFile?: string;
  /** How long to wait for the server to serve; default 60 s. */
  readonly readyTimeoutMs?: number;
  readonly onProgress?: (message: string) => void;
  /** The Temporal CLI binary; default `findTemporalCli()`. */
  readonly temporalCli?: string;
}

export interface DevServerSettings {
  readonly dynamicConfig: Readonly<Record<string, string | number | boolean>>;
  readonly sqlitePragmas: Readonly<Record<string, string>>;
}

export interface DevServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface DevServer {
  /** `host:port` for a Temporal client. */
  readonly address: string;
  /** Web UI address, when not headless. */
  readonly uiUrl?: string;
  /** Absolute path of the SQLite file. */
  readonly dbFile: string;
  readonly namespace: string;
  /** The dynamic config and SQLite pragmas it was started with (tuning, caller's, fixed). */
  readonly settings: DevServerSettings;
  readonly pid: number;
  /** Settles when the server process exits, for whatever reason (stop() or a crash). */
  readonly exited: Promise<DevServerExit>;
  /** SIGTERM, up to 5 s of grace, then SIGKILL. Idempotent; resolves once the process is gone. */
  stop(): Promise<void>;
}

const DEFAULT_IP = '127.0.0.1';
const STOP_GRACE_MS = 5_000;
/** Tries when we picked the port ourselves: another process may grab it between pick and bind. */
const PICKED_PORT_ATTEMPTS = 3;

/** Starts a dev server and resolves once it serves the namespace; rejects with DevServerError. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  validate(options);
  const cli = options.temporalCli ?? findTemporalCli();
  if (cli === undefined) {
    throw new DevServerError(
      'cli-missing',
      'The Temporal CLI was not found: put `temporal` on PATH, set TEMPORAL_CLI, or run `agentd dev` once to build it.',
    );
  }
  // The CLI runs through a shell (for its umask), which would turn a missing program into an exit code.
  if (process.platform !== 'win32' && !isExecutable(cli)) {
    throw new DevServerError('spawn-failed', `Could not run the Temporal CLI at ${cli}: it is missing or not executable`);
  }
  const ip = options.ip ?? DEFAULT_IP;
  const dbFile = path.resolve(options.dbFile);
  const logFile = options.logFile === undefined ? undefined : path.resolve(options.logFile);
  keepPrivate(dbFile, logFile);

  const pickPort = options.port === undefined || options.port === 0;
  const pickUiPort = options.uiPort === 0;
  const attempts = pickPort || pickUiPort ? PICKED_PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = pickPort ? await freePort(ip) : (options.port as number);
    const uiPort = pickUiPort ? await freePort(ip) : options.uiPort;
    try {
      return await launch({ ...options, cli, ip, dbFile, logFile, port, uiPort });
    } catch (err) {
      // Retry only when the port taken is one we picked; a taken port the caller chose stays taken.
      const pickedPortTaken =
        err instanceof DevServerError &&
        err.code === 'port-in-use' &&
        ((pickPort && err.port === port) || (pickUiPort && err.port === uiPort));
      if (pickedPortTaken && attempt < attempts) {
        options.onProgress?.(`Port ${err.port} was taken meanwhile; trying another one`);
        continue;
      }
      throw err;
    }
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface LaunchOptions extends DevServerOptions {
  readonly cli: string;
  readonly ip: string;
  readonly dbFile: string;
  readonly logFile: string | undefined;
  readonly port: number;
}

async function launch(options: LaunchOptions): Promise<DevServer> {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const address = hostPort(options.ip, options.port);
  const uiUrl = options.uiPort === undefined ? undefined : `http://${hostPort(options.ip, options.uiPort)}`;
  const started = Date.now();
  options.onProgress?.(`Starting the Temporal dev server on ${address} (db ${options.dbFile})…`);

  const output = captureOutput(options.logFile);
  const { command, args, guarded } = dieWithParent(...withPrivateUmask(options.cli, serverArgs(options, namespace)));
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      env: temporalCliEnv(),
      stdio: ['ignore', output.stdio, output.stdio],
      // Own process group, so a terminal's Ctrl-C reaches only us and the caller decides how to
      // stop the server; only when parent death is guarded, or a killed parent would orphan it.
      detached: guarded,
      windowsHide: true,
    });
  } finally {
    output.closeParentFd();
  }
  const exited = new Promise<DevServerExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  output.attach(child);
  await spawned(child, options.cli);
  // A failed kill() reports through 'error'; with no listener that would crash the caller.
  child.on('error', () => {});
  const pid = child.pid as number;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= terminate(child, exited));

  try {
    await waitUntilReady({ ...options, namespace, address, exited, started });
  } catch (err) {
    await stop();
    if (!(err instanceof NotReady)) throw err;
    // Pipes can deliver the last output after 'exit'; give them a moment before quoting the tail.
    await output.drained(500);
    throw notReadyError(err, options, address, output.tail());
  }
  options.onProgress?.(`Temporal dev server ready on ${address} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const settings = { dynamicConfig: serverDynamicConfig(options), sqlitePragmas: serverPragmas(options) };
  return { address, ...(uiUrl === undefined ? {} : { uiUrl }), dbFile: options.dbFile, namespace, settings, pid, exited, stop };
}

/** Where the server's output goes: a log file the child writes itself, or pipes into a bounded tail. */
function captureOutput(logFile: string | undefined) {
  if (logFile !== undefined) {
    // The child gets the file descriptor directly, so its log survives us and needs no pumping.
    const fd = fs.openSync(logFile, 'a', PRIVATE_FILE);
    return {
      stdio: fd,
      closeParentFd: () => fs.closeSync(fd),
      attach: (_child: ChildProcess) => {},
      drained: async (_ms: number) => {},
      tail: () => fileTail(logFile),
    };
  }
  const tail = new OutputTail();
  let closed: Promise<void> = Promise.resolve();
  return {
    stdio: 'pipe' as const,
    closeParentFd: () => {},
    attach: (child: ChildProcess) => {
      child.stdout?.on('data', (chunk: Buffer) => tail.push(chunk));
      child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
      closed = new Promise((resolve) => child.once('close', () => resolve()));
    },
    drained: (ms: number) => Promise.race([closed, delay(ms)]),
    tail: () => tail.lines(),
  };
}

/** Resolves once the process exists; rejects when it could not be executed. */
function spawned(child: ChildProcess, cli: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) =>
      reject(new DevServerError('spawn-failed', `Could not run the Temporal CLI at ${cli}: ${err.message}`, { cause: err })),
    );
  });
}

/** SIGTERM, a grace period for SQLite to be flushed and closed, then SIGKILL. */
async function terminate(child: ChildProcess, exited: Promise<DevServerExit>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const gone = await Promise.race([
    exited.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS))),
  ]);
  clearTimeout(timer);
  if (!gone) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** `host:port` as a client dials it: wildcard binds are reached via loopback, IPv6 gets brackets. */
function hostPort(ip: string, port: number): string {
  const host = ip === '0.0.0.0' ? '127.0.0.1' : ip === '::' ? '::1' : ip;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

