/** Runs agentd's own entry points as child processes, compiled or (under tsx) from source alike. */
import { spawn, type ChildProcess } from 'node:child_process';

/** The script of an entry point under src/ (e.g. 'worker', 'cli/main'), in dist or in src alike. */
export function entryPoint(pathUnderSrc: string): string {
  return require.resolve(`../src/${pathUnderSrc}`);
}

/** Starts `node <script>` with this process's loader flags (so tsx runs work) and a clean env. */
export function spawnNode(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...process.execArgv, script, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
