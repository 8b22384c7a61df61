/**
 * Starting and stopping a local Temporal dev server (`temporal server start-dev`) backed by a SQLite
 * file, for `agentd dev` and for tests. Nothing global is registered here: whoever starts a server
 * decides how signals and shutdown reach it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ENGINE_TUNING } from '../config/engineTuning';
import { devServerSearchAttributeArgs } from '../session/searchAttributes';
import { temporalCliEnv } from './cliEnv';
import { freePort } from './freePort';
import { probeServer } from './health';
import { OutputTail, fileTail, indentedBlock } from './outputTail';
import { dieWithParent } from './parentDeath';
import { findTemporalCli } from './temporalCli';

export { freePort } from './freePort';

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

interface DevServerExit {
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

export const DevServerErrorCode = {
  /** No Temporal CLI found; see ensureTemporalCli. */
  cliMissing: 'cli-missing',
  invalidOptions: 'invalid-options',
  /** The binary could not be executed at all. */
  spawnFailed: 'spawn-failed',
  /** A port the server needs is taken by another process. */
  portInUse: 'port-in-use',
  /** The server exited before it was ready. */
  exitedEarly: 'exited-early',
  /** The server kept running but never answered the health check in time. */
  readyTimeout: 'ready-timeout',
} as const;
export type DevServerErrorCode = (typeof DevServerErrorCode)[keyof typeof DevServerErrorCode];

export class DevServerError extends Error {
  override readonly name = 'DevServerError';
  /** For 'port-in-use': the port that was taken, when the server's log names it. */
  readonly port?: number;

  constructor(
    readonly code: DevServerErrorCode,
    message: string,
    options?: ErrorOptions & { readonly port?: number },
  ) {
    super(message, options);
    if (options?.port !== undefined) this.port = options.port;
  }
}

const DEFAULT_IP = '127.0.0.1';
const DEFAULT_NAMESPACE = 'default';
const DEFAULT_READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const POLL_INTERVAL_MS = 200;
const PROBE_TIMEOUT_MS = 3_000;
/** Tries when we picked the port ourselves: another process may grab it between pick and bind. */
const PICKED_PORT_ATTEMPTS = 3;

/** Dynamic config we always set: the version check phones home, and there is no outside network. */
const FIXED_DYNAMIC_CONFIG = { 'frontend.enableServerVersionCheck': false } as const;

/** The dynamic config a server started with `options` runs with: the tuning, the caller's, then ours. */
export function serverDynamicConfig(options: Pick<DevServerOptions, 'dynamicConfig'>): Record<string, string | number | boolean> {
  // Ours last so a caller cannot turn the version check (and its network call) back on.
  return { ...ENGINE_TUNING.server.dynamicConfig, ...options.dynamicConfig, ...FIXED_DYNAMIC_CONFIG };
}

/** The SQLite pragmas a server started with `options` runs with: the tuning, then the caller's. */
export function serverPragmas(options: Pick<DevServerOptions, 'sqlitePragmas'>): Record<string, string> {
  return { ...ENGINE_TUNING.server.sqlitePragmas, ...options.sqlitePragmas };
}

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

const PRIVATE_FOLDER = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * The server's database holds every activity input (task text, user messages) and its log may quote
 * them: their folders are created 0700, and files an earlier run left readable to others are made
 * 0600. The server creates the database itself (an empty file it did not create fails its schema
 * set-up), so it runs under umask 077 too; SQLite gives the -wal and -shm files the database's mode.
 */
export function keepPrivate(dbFile: string, logFile: string | undefined): void {
  const written = logFile === undefined ? [dbFile] : [dbFile, logFile];
  for (const file of written) fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_FOLDER });
  for (const file of [...written, `${dbFile}-wal`, `${dbFile}-shm`]) {
    if (fs.existsSync(file)) fs.chmodSync(file, PRIVATE_FILE);
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

/** The command run by a POSIX shell that sets umask 077 first, then execs it (same pid, same signals). */
function withPrivateUmask(command: string, args: readonly string[]): [string, string[]] {
  if (process.platform === 'win32') return [command, [...args]];
  return ['/bin/sh', ['-c', 'umask 077 && exec "$0" "$@"', command, ...args]];
}

interface LaunchOptions extends DevServerOptions {
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

function serverArgs(options: LaunchOptions, namespace: string): string[] {
  const args = ['server', 'start-dev', '--ip', options.ip, '--port', String(options.port)];
  args.push('--db-filename', options.dbFile, '--log-level', 'warn');
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (namespace !== DEFAULT_NAMESPACE) args.push('--namespace', namespace);
  // Registered at every start (the CLI skips those the database already has), so sessions can be listed by them.
  args.push(...devServerSearchAttributeArgs());
  for (const [name, value] of Object.entries(serverPragmas(options))) args.push('--sqlite-pragma', `${name}=${value}`);
  const dynamicConfig = serverDynamicConfig(options);
  for (const [key, value] of Object.entries(dynamicConfig)) {
    // The CLI parses each value as JSON, so strings need their quotes.
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
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

/** Why the readiness wait gave up; turned into a DevServerError once the output tail is known. */
class NotReady extends Error {
  constructor(
    readonly reason: 'exited' | 'timeout',
    readonly exit?: DevServerExit,
  ) {
    super(reason);
  }
}

interface ReadyWait {
  readonly cli: string;
  readonly address: string;
  readonly namespace: string;
  readonly exited: Promise<DevServerExit>;
  readonly started: number;
  readonly readyTimeoutMs?: number;
}

async function waitUntilReady(wait: ReadyWait): Promise<void> {
  const deadline = wait.started + (wait.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS);
  let exit: DevServerExit | undefined;
  const abort = new AbortController();
  const exitedFirst = wait.exited.then((info) => {
    exit = info;
    abort.abort();
    return false;
  });
  try {
    for (;;) {
      if (exit !== undefined) throw new NotReady('exited', exit);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new NotReady('timeout');
      const probe = probeServer({
        cli: wait.cli,
        address: wait.address,
        namespace: wait.namespace,
        timeoutMs: Math.min(PROBE_TIMEOUT_MS, remaining),
        signal: abort.signal,
      });
      if (await Promise.race([probe, exitedFirst])) return;
      await Promise.race([delay(Math.min(POLL_INTERVAL_MS, Math.max(deadline - Date.now(), 0))), exitedFirst]);
    }
  } finally {
    abort.abort();
  }
}

function notReadyError(err: NotReady, options: LaunchOptions, address: string, tail: string): DevServerError {
  const logHint = options.logFile === undefined ? '' : ` (full log: ${options.logFile})`;
  const shown = indentedBlock(`Last server output${logHint}:`, tail);
  const inUse = tail.split('\n').find((line) => /address already in use|bind:/i.test(line));
  if (inUse !== undefined) {
    // e.g. `can't set UI port 8233: listen tcp 127.0.0.1:8233: bind: address already in use`
    const taken = /listen tcp (\S+):(\d+): bind/.exec(inUse);
    const what = taken === null ? 'a port it needs' : `${taken[1]}:${taken[2]}`;
    const which = /\bUI port\b/.test(inUse) ? ' (Web UI)' : '';
    return new DevServerError(
      'port-in-use',
      `The Temporal dev server for ${address} could not start: ${what}${which} is already in use ` +
        `(another Temporal server?). Pick another port or stop the other process.${shown}`,
      { cause: err, ...(taken === null ? {} : { port: Number(taken[2]) }) },
    );
  }
  if (err.reason === 'exited') {
    const how = err.exit?.signal != null ? `was killed by ${err.exit.signal}` : `exited with code ${err.exit?.code}`;
    return new DevServerError('exited-early', `The Temporal dev server ${how} before it was ready.${shown}`, { cause: err });
  }
  const waited = ((options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS) / 1000).toFixed(0);
  return new DevServerError(
    'ready-timeout',
    `The Temporal dev server on ${address} did not become ready within ${waited} s; it was stopped.${shown}`,
    { cause: err },
  );
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

function validate(options: DevServerOptions): void {
  const bad = (message: string): never => {
    throw new DevServerError('invalid-options', message);
  };
  if (options.dbFile.trim() === '') bad('dbFile must not be empty');
  for (const [name, value] of [
    ['port', options.port],
    ['uiPort', options.uiPort],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0 && value <= 65535)) {
      bad(`${name} must be an integer from 0 to 65535, got ${value}`);
    }
  }
  if (options.namespace !== undefined && options.namespace.trim() === '') bad('namespace must not be empty');
  if (options.readyTimeoutMs !== undefined && !(options.readyTimeoutMs > 0)) bad('readyTimeoutMs must be positive');
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    if (!/^[A-Za-z][A-Za-z0-9_.]*$/.test(key)) bad(`dynamic config key ${JSON.stringify(key)} is not a valid identifier`);
    if (typeof value === 'number' && !Number.isFinite(value)) bad(`dynamic config ${key} must be a finite number`);
  }
  for (const [name, value] of Object.entries(options.sqlitePragmas ?? {})) {
    if (!/^[a-z_]+$/.test(name) || !/^[A-Za-z0-9_-]+$/.test(value)) bad(`sqlite pragma ${JSON.stringify(`${name}=${value}`)} is not a plain name=value`);
  }
}

/** `host:port` as a client dials it: wildcard binds are reached via loopback, IPv6 gets brackets. */
function hostPort(ip: string, port: number): string {
  const host = ip === '0.0.0.0' ? '127.0.0.1' : ip === '::' ? '::1' : ip;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
