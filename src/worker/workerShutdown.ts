/**
 * How a worker process stops on SIGTERM or SIGINT: the first signal drains (no new tasks; running
 * activities get the grace time, then are cancelled through their heartbeats), a second one exits
 * at once. agentd owns these signals; installWorkerRuntime keeps the SDK's own handlers off.
 */
import type { Worker } from '@temporalio/worker';

const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/** Exit code of a worker told twice to stop: interrupted, as a shell reports a Ctrl-C. */
const FORCED_EXIT_CODE = 130;

/** Asks the worker to drain; harmless when it is already stopping or stopped. */
export function requestShutdown(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}

/** Listens for the stop signals until the returned function is called. */
export function drainOnSignals(worker: Worker, graceSeconds: number, log: (line: string) => void): () => void {
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      log(`agentd worker: ${signal} again; exiting without waiting for running activities`);
      process.exit(FORCED_EXIT_CODE);
    }
    draining = true;
    log(
      `agentd worker: ${signal} received; draining: no new tasks, running activities have ${graceSeconds} s ` +
        `to finish before they are cancelled (send ${signal} again to exit at once)`,
    );
    requestShutdown(worker);
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onSignal);
  return () => {
    for (const signal of SHUTDOWN_SIGNALS) process.off(signal, onSignal);
  };
}
