/**
 * Locating the Temporal CLI (which carries the dev server), and building it with `go install` when
 * it is missing: the SDK's own test-server download needs network access we cannot count on.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { executableName, findOnPath, isExecutableFile } from './findExecutable';
import { OutputTail, indentedBlock } from './outputTail';

export const TEMPORAL_CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
/** Pinned: from v1.6 the CLI's go.mod has a replace directive, which `go install pkg@version` rejects. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export const TemporalCliErrorCode = {
  /** No CLI found and no Go toolchain to build one. */
  goMissing: 'go-missing',
  /** `go install` ran and failed (network, toolchain, disk…). */
  buildFailed: 'build-failed',
} as const;
export type TemporalCliErrorCode = (typeof TemporalCliErrorCode)[keyof typeof TemporalCliErrorCode];

export class TemporalCliError extends Error {
  override readonly name = 'TemporalCliError';

  constructor(
    readonly code: TemporalCliErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Where agentd keeps a CLI it built: `${XDG_CACHE_HOME or ~/.cache}/agentd/bin`. */
export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  const cacheRoot = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(env.HOME ?? os.homedir(), '.cache');
  return path.join(cacheRoot, 'agentd', 'bin');
}

/** The Temporal CLI to use: `$TEMPORAL_CLI`, else `temporal` on PATH, else the cached build. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.TEMPORAL_CLI;
  if (fromEnv !== undefined && fromEnv !== '' && isExecutableFile(fromEnv)) return path.resolve(fromEnv);
  const onPath = findOnPath('temporal', env);
  if (onPath !== undefined) return onPath;
  const cached = path.join(temporalCliCacheDir(env), executableName('temporal'));
  return isExecutableFile(cached) ? cached : undefined;
}

export interface EnsureTemporalCliOptions {
  /** Human-readable progress lines; a build takes minutes and should not look like a hang. */
  readonly onProgress?: (message: string) => void;
  /** Environment to search and to build with; defaults to `process.env` (tests pass a fake one). */
  readonly env?: NodeJS.ProcessEnv;
  /** How often to report that a build is still running; default 15 s. */
  readonly progressIntervalMs?: number;
}

/** One build per cache folder per process, so concurrent callers share it instead of racing. */
const buildsInFlight = new Map<string, Promise<string>>();

/** The path of a usable Temporal CLI, building it into the cache folder first when none is found. */
export async function ensureTemporalCli(options: EnsureTemporalCliOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const found = findTemporalCli(env);
  if (found !== undefined) return found;
  const badOverride = env.TEMPORAL_CLI;
  if (badOverride !== undefined && badOverride !== '') {
    options.onProgress?.(`TEMPORAL_CLI=${badOverride} is not an executable file; ignoring it`);
  }

  const binDir = temporalCliCacheDir(env);
  let build = buildsInFlight.get(binDir);
  if (build === undefined) {
    build = buildTemporalCli(binDir, env, options).finally(() => buildsInFlight.delete(binDir));
    buildsInFlight.set(binDir, build);
  }
  return build;
}

async function buildTemporalCli(binDir: string, env: NodeJS.ProcessEnv, options: EnsureTemporalCliOptions): Promise<string> {
  const go = findOnPath('go', env);
  if (go === undefined) {
    throw new TemporalCliError(
      'go-missing',
      'The Temporal CLI was not found, and Go is not installed to build it. Either install Go ' +
        '(https://go.dev/dl/) and run this again, or put the `temporal` binary on your PATH ' +
        '(https://docs.temporal.io/cli), or set TEMPORAL_CLI to its path.',
    );
  }

  fs.mkdirSync(binDir, { recursive: true });
  const target = path.join(binDir, executableName('temporal'));
  const spec = `${TEMPORAL_CLI_PACKAGE}@${TEMPORAL_CLI_VERSION}`;
  const progress = options.onProgress ?? (() => {});
  const started = Date.now();
  progress(`Building the Temporal CLI (go install ${spec}) into ${binDir}; this takes a few minutes…`);
  const ticker = setInterval(
    () => progress(`…still building the Temporal CLI (${formatElapsed(Date.now() - started)} elapsed)`),
    options.progressIntervalMs ?? 15_000,
  );
  try {
    await runGoInstall(go, spec, binDir, env);
  } finally {
    clearInterval(ticker);
  }
  if (!isExecutableFile(target)) {
    throw new TemporalCliError('build-failed', `go install ${spec} succeeded but ${target} is not there.`);
  }
  progress(`Built the Temporal CLI in ${formatElapsed(Date.now() - started)}: ${target}`);
  return target;
}

function runGoInstall(go: string, spec: string, binDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const tail = new OutputTail();
  const failure = (what: string, cause?: unknown): TemporalCliError =>
    new TemporalCliError(
      'build-failed',
      `Building the Temporal CLI failed: go install ${spec} ${what}.${indentedBlock('Last output from go:', tail.lines(25))}`,
      cause === undefined ? undefined : { cause },
    );

  return new Promise((resolve, reject) => {
    const child = spawn(go, ['install', spec], {
      // CGO off: the CLI is pure Go (its SQLite is modernc), so no C compiler is needed.
      env: { ...env, GOBIN: binDir, CGO_ENABLED: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));
    child.once('error', (err) => reject(failure('could not be run', err)));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(failure(signal !== null ? `was killed by ${signal}` : `exited with code ${code}`));
    });
  });
}

/** "45s" or "3m 07s". */
function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}
