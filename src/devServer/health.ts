/**
 * One readiness probe of a Temporal server, done with the CLI itself: "SERVING" from
 * `operator cluster health`, then the namespace answering `operator namespace describe`, which is
 * what a client needs before it can start workflows.
 */
import { execFile } from 'node:child_process';
import { temporalCliEnv } from './cliEnv';

export interface ProbeOptions {
  readonly cli: string;
  readonly address: string;
  readonly namespace: string;
  /** Upper bound for the whole probe; a port that accepts but never answers must not stall us. */
  readonly timeoutMs: number;
  /** Kills a probe in flight, e.g. when the server exits while we wait. */
  readonly signal?: AbortSignal;
}

/** True when the server answers and the namespace exists; false on any failure (not ready yet). */
export async function probeServer(options: ProbeOptions): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  const common = ['--address', options.address];
  const health = await runCli(options, ['operator', 'cluster', 'health', ...common], deadline);
  if (health === undefined || !health.includes('SERVING')) return false;
  const namespace = await runCli(
    options,
    ['operator', 'namespace', 'describe', '--namespace', options.namespace, '--output', 'json', ...common],
    deadline,
  );
  return namespace !== undefined;
}

/** The command's stdout when it exits 0, else undefined. */
function runCli(options: ProbeOptions, args: string[], deadline: number): Promise<string | undefined> {
  const remainingMs = Math.max(deadline - Date.now(), 100);
  // --command-timeout lets the CLI give up cleanly; the execFile timeout is the backstop.
  const fullArgs = [...args, '--command-timeout', `${remainingMs}ms`];
  return new Promise((resolve) => {
    execFile(
      options.cli,
      fullArgs,
      { env: temporalCliEnv(), timeout: remainingMs + 1000, signal: options.signal, windowsHide: true },
      (error, stdout) => resolve(error === null ? stdout : undefined),
    );
  });
}
