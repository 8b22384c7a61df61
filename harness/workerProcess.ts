/** agentd workers as child processes (`node dist/src/worker.js`), for tests that kill them. */
import { entryPoint, finished, spawnNode, type Finished } from './processes';

export interface WorkerEnv {
  readonly temporalAddress: string;
  /** AGENTD_STORE: a SQLite file, or a postgres:// URL. */
  readonly storeFile: string;
  readonly workspaceRoot: string;
  /** The model endpoint (simulator or a proxy in front of it). */
  readonly modelBaseURL: string;
  /** Anything else the worker should see (e.g. PATH for the commands its tools run). */
  readonly extra?: NodeJS.ProcessEnv;
  /** Called with each line the worker writes to stderr, as it comes (for timing a log line). */
  readonly onStderr?: (line: string) => void;
  /** Another worker's entry script reading the same variables (a benchmark's floor). @default agentd's worker */
  readonly script?: string;
}

export interface WorkerProcess {
  readonly pid: number;
  /** Settles when the process has exited and its output is read. */
  readonly done: Promise<Finished>;
  /** True until the process exits. */
  alive(): boolean;
  /** Sends `signal` (if still running) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
}

export function startWorkerProcess(env: WorkerEnv): WorkerProcess {
  const child = spawnNode(env.script ?? entryPoint('worker'), [], {
    TEMPORAL_ADDRESS: env.temporalAddress,
    AGENTD_STORE: env.storeFile,
    AGENTD_WORKSPACES: env.workspaceRoot,
    OPENAI_BASE_URL: env.modelBaseURL,
    ...env.extra,
  });
  const done = finished(child);
  if (env.onStderr) {
    const onStderr = env.onStderr;
    let partial = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onStderr(line);
    });
  }
  let exited = false;
  // A test that times out or throws must not leave workers polling behind it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => {
    exited = true;
    process.off('exit', killOnExit);
  });
  if (child.pid === undefined) throw new Error('the worker process could not be started');
  return {
    pid: child.pid,
    done,
    alive: () => !exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!exited) child.kill(signal);
      return done;
    },
  };
}

/** What agentd's worker writes to stderr once it polls its task queue. */
const POLLING_LINE = /^agentd worker on /;

export interface PollingOptions {
  /** The line that says the process polls. @default agentd's start-up line */
  readonly readyLine?: RegExp;
  /** Longest wait for that line. @default 120 s */
  readonly limitMs?: number;
}

/**
 * A worker process once it polls its task queue. Sessions started after this reach every worker
 * started with it: a session's tool calls go eagerly to the worker running it, so a worker that
 * starts late may be handed nothing; and a SIGTERM before the line meets no handler yet.
 */
export function startPollingWorker(env: WorkerEnv, options: PollingOptions = {}): Promise<WorkerProcess> {
  const { readyLine = POLLING_LINE, limitMs = 120_000 } = options;
  return new Promise((resolve, reject) => {
    // A worker that never polls is stopped, not left running beside whatever the caller does next.
    const timer = setTimeout(() => {
      reject(new Error(`a worker did not start polling within ${limitMs / 1000} s`));
      void worker.stop('SIGKILL');
    }, limitMs);
    const worker = startWorkerProcess({
      ...env,
      onStderr: (line) => {
        env.onStderr?.(line);
        if (!readyLine.test(line)) return;
        clearTimeout(timer);
        resolve(worker);
      },
    });
    void worker.done.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`a worker exited with code ${exit.code} before it polled: ${exit.stderr.slice(-2000)}`));
    });
  });
}
