/**
 * Waiting for a started server to serve its namespace, and when it does not, why: it exited (a port
 * taken, a bad flag) or it never answered in time, told with the last lines it wrote.
 */
import type { DevServerExit, LaunchOptions } from './devServer';
import { DevServerError } from './devServerError';
import { probeServer } from './health';
import { indentedBlock } from './outputTail';

const DEFAULT_READY_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 200;
const PROBE_TIMEOUT_MS = 3_000;

/** Why the readiness wait gave up; turned into a DevServerError once the output tail is known. */
export class NotReady extends Error {
  constructor(
    readonly reason: 'exited' | 'timeout',
    readonly exit?: DevServerExit,
  ) {
    super(reason);
  }
}

export interface ReadyWait {
  readonly cli: string;
  readonly address: string;
  readonly namespace: string;
  readonly exited: Promise<DevServerExit>;
  readonly started: number;
  readonly readyTimeoutMs?: number;
}

export async function waitUntilReady(wait: ReadyWait): Promise<void> {
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

export function notReadyError(err: NotReady, options: LaunchOptions, address: string, tail: string): DevServerError {
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

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
