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

/**
 * A worker process once it polls its task queue. Tests that need work on every worker start their
 * sessions after this: a session's tool calls go eagerly to the worker running it, so a worker that
 * starts late may be handed nothing.
 */
export function startPollingWorker(env: WorkerEnv): Promise<WorkerProcess> {
  return new Promise((resolve, reject) => {
    const worker = startWorkerProcess({
      ...env,
      onStderr: (line) => {
        env.onStderr?.(line);
        if (line.startsWith('agentd worker on ')) resolve(worker);
      },
    });
    void worker.done.then((exit) => reject(new Error(`a worker exited with code ${exit.code} before it polled: ${exit.stderr.slice(-2000)}`)));
  });
}
