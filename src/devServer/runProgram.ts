/**
 * Running a helper program to completion (pip, python, go, the CLI's `--version`) and reporting a
 * long one's progress: one way to do it, so every install route fails with the program's last words.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { OutputTail, indentedBlock } from './outputTail';

export interface RunProgramOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Killed after this long; undefined waits as long as it takes (a build). */
  readonly timeoutMs?: number;
  /** Lines of output quoted when it fails. @default 15 */
  readonly tailLines?: number;
}

/** Resolves with the program's stdout; rejects with an Error naming how it ended and quoting its last lines. */
export function runProgram(program: string, args: readonly string[], options: RunProgramOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const tail = new OutputTail();
    let stdout = '';
    const child = spawn(program, args, {
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      tail.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));
    child.once('error', (err) => reject(new Error(`${path.basename(program)} could not be run`, { cause: err })));
    child.once('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else {
        const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
        reject(new Error(`${path.basename(program)} ${how}.${indentedBlock('Last output:', tail.lines(options.tailLines ?? 15))}`));
      }
    });
  });
}

/** Runs `work`, saying every `intervalMs` that it is `still <doing>`, so a slow install does not look like a hang. */
export async function withProgress<T>(
  progress: (message: string) => void,
  doing: string,
  intervalMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  const ticker = setInterval(() => progress(`…still ${doing} (${formatElapsed(Date.now() - started)} elapsed)`), intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(ticker);
  }
}

/** "45s" or "3m 07s". */
export function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}
