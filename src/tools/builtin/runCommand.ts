/**
 * The run_command tool: a shell command in the workspace, under the worker's sandbox (see sandbox.ts),
 * with a time limit, capped output and a clean environment.
 */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { z } from 'zod';
import { OutputCollector } from '../outputCollector';
import { releaseSessionCgroups } from '../commandCgroups';
import { commandLaunch, prepareWorkspace, SandboxKind, sessionCgroupsFor } from '../sandbox';
import { keptOutputChars, type Tool, type ToolContext, ToolInputError, type ToolOutcome } from '../tool';

/** Room kept below the output cap for the notes and the final status line, so they are never cut off. */
const STATUS_RESERVE_CHARS = 160;
/** After the shell exits and its group is killed, how long to wait for the pipes to close (a process that left
 * the group with setsid may hold them open forever). */
const PIPE_CLOSE_GRACE_MS = 1000;
/** setTimeout fires at once for delays past 2^31-1 ms, which would kill every command immediately. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * The one PATH a command gets: the system folders, never the worker's own PATH (which may name its
 * node_modules, a virtualenv or an operator's private tools).
 */
export const COMMAND_PATH = '/usr/local/bin:/usr/bin:/bin';

const RunCommandInput = z.object({
  command: z.string().min(1).describe('The command line, run with `sh -c` in the workspace folder (/workspace in the sandbox).'),
  timeoutSeconds: z
    .number()
    .positive()
    .optional()
    .describe('Kill the command after this many seconds. Default and maximum: the time limit of one tool call.'),
});

export const runCommandTool: Tool<typeof RunCommandInput> = {
  name: 'run_command',
  description:
    'Run a shell command (sh -c) in the workspace folder and return its output (stdout and stderr interleaved, ' +
    'long output cut in the middle) followed by its exit code. Stdin is empty. The command and everything it ' +
    'started is killed when it times out, and background processes are killed when the command ends. ' +
    'Where the worker has a sandbox, the command has no network, can write only in the workspace (seen as ' +
    '/workspace) and a private /tmp, and has limits on CPU time, memory and processes.',
  input: RunCommandInput,
  effect: 'write',
  run(args, ctx) {
    return runCommand(args.command, args.timeoutSeconds, ctx);
  },
};

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

async function runCommand(command: string, timeoutSeconds: number | undefined, ctx: ToolContext): Promise<ToolOutcome> {
  ctx.signal.throwIfAborted();
  if (ctx.sandbox.kind === SandboxKind.refused) throw new ToolInputError(ctx.sandbox.reason);
  const limitSeconds = ctx.timeoutMs / 1000;
  const seconds = timeoutSeconds === undefined ? limitSeconds : Math.min(timeoutSeconds, limitSeconds);
  const collector = new OutputCollector(keptOutputChars(ctx));

  await prepareWorkspace(ctx.sandbox, ctx.workspace);
  const cgroupProcs = await sessionCgroupsFor(ctx.sandbox, ctx.workspace);
  let ended: Ended;
  try {
    ended = await spawnAndWait(command, seconds * 1000, ctx, collector, cgroupProcs);
  } finally {
    await releaseSessionCgroups(cgroupProcs);
  }
  if (ended.aborted) throw abortReason(ctx.signal);

  const notes =
    timeoutSeconds !== undefined && timeoutSeconds > limitSeconds
      ? `[timeoutSeconds lowered to ${limitSeconds}, the limit for one tool call]\n`
      : '';
  const status = ended.timedOut
    ? `killed after ${seconds}s (timeout)`
    : ended.code !== null
      ? `exit code: ${ended.code}`
      : `killed by signal ${ended.signal ?? 'unknown'}`;
  const body = collector.text(Math.max(0, keptOutputChars(ctx) - STATUS_RESERVE_CHARS));
  const separator = body === '' || body.endsWith('\n') ? '' : '\n';
  return { output: `${notes}${body}${separator}${status}` };
}

function spawnAndWait(command: string, timeoutMs: number, ctx: ToolContext, collector: OutputCollector, cgroupProcs: readonly string[]): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const launch = commandLaunch(ctx.sandbox, ctx.workspace, command, timeoutMs / 1000, cgroupProcs);
    // detached puts the shell (or bwrap) at the head of a new process group, so one kill reaches all it
    // started; inside bwrap, the end of its pid namespace takes the rest.
    const child = spawn(launch.file, launch.args, {
      cwd: launch.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', launch.optionsOnFd3 === undefined ? 'ignore' : 'pipe'],
      // Never the worker's own environment: it holds API keys the agent must not see.
      env: { PATH: COMMAND_PATH, HOME: launch.home, LANG: 'C.UTF-8' },
    });
    // Typed nullable once stdio has a fourth entry; 'pipe' above makes them streams.
    const output = [child.stdout, child.stderr].filter((stream) => stream !== null);
    const optionsPipe = child.stdio[3];
    if (launch.optionsOnFd3 !== undefined && optionsPipe instanceof Writable) {
      // A bwrap that fails before reading closes its end; the exit code then tells the story.
      optionsPipe.on('error', () => undefined);
      optionsPipe.end(launch.optionsOnFd3);
    }
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, Math.min(timeoutMs, MAX_TIMER_MS));
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    const cleanUp = (): void => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      ctx.signal.removeEventListener('abort', onAbort);
    };
    const finish = (): void => {
      cleanUp();
      if (exit === undefined) return;
      resolve({ ...exit, timedOut, aborted });
    };

    for (const stream of output) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => collector.push(chunk));
    }

    child.once('error', (err) => {
      cleanUp();
      killGroup();
      reject(err);
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // Background processes would otherwise outlive the call and keep the output pipes open.
      killGroup();
      graceTimer = setTimeout(() => {
        for (const stream of output) stream.destroy();
        finish();
      }, PIPE_CLOSE_GRACE_MS);
    });
    // 'close' comes after 'exit' once both pipes are drained, so all output has been collected.
    child.once('close', finish);
  });
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('run_command aborted; its processes were killed');
}
