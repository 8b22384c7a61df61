/** The `agentd` command line: dispatches to a command and turns known errors into exit codes. */
import { ENCRYPTION_ENV, EncryptionSettingsError } from '../codec/encryptionKeys';
import { ScheduleInputError } from '../client/scheduleSpec';
import { ConnectionSettingsError } from '../connection/options';
import { SessionInputError } from '../session/input';
import { StoreSettingError } from '../store/storeSetting';
import { ConfigError } from '../config/configError';
import { ExitCode, UsageError, type Command } from './command';
import { printable } from './printable';

/**
 * Commands load on demand: only the one asked for, so a command that rejects its input does so before
 * the Temporal client, the worker or the simulator are even loaded (seconds on a busy machine).
 */
interface CommandEntry {
  readonly name: string;
  load(): Promise<Command>;
}

const COMMANDS: readonly CommandEntry[] = [
  { name: 'setup', load: async () => (await import('./commands/setup.js')).setupCommand },
  { name: 'demo', load: async () => (await import('./commands/demo.js')).demoCommand },
  { name: 'dev', load: async () => (await import('./commands/dev.js')).devCommand },
  { name: 'worker', load: async () => (await import('./commands/worker.js')).workerCommand },
  { name: 'sim', load: async () => (await import('./commands/sim.js')).simCommand },
  { name: 'start', load: async () => (await import('./commands/start.js')).startCommand },
  { name: 'status', load: async () => (await import('./commands/status.js')).statusCommand },
  { name: 'watch', load: async () => (await import('./commands/watch.js')).watchCommand },
  { name: 'send', load: async () => (await import('./commands/send.js')).sendCommand },
  { name: 'interrupt', load: async () => (await import('./commands/interrupt.js')).interruptCommand },
  { name: 'compact', load: async () => (await import('./commands/compact.js')).compactCommand },
  { name: 'list', load: async () => (await import('./commands/list.js')).listCommand },
  { name: 'search-attributes', load: async () => (await import('./commands/searchAttributes.js')).searchAttributesCommand },
  { name: 'approve', load: async () => (await import('./commands/approve.js')).approveCommand },
  { name: 'schedule', load: async () => (await import('./commands/schedule.js')).scheduleCommand },
  { name: 'cancel', load: async () => (await import('./commands/cancel.js')).cancelCommand },
  { name: 'transcript', load: async () => (await import('./commands/transcript.js')).transcriptCommand },
  { name: 'console', load: async () => (await import('./commands/console.js')).consoleCommand },
];

async function overview(): Promise<string> {
  const commands = await Promise.all(COMMANDS.map((entry) => entry.load()));
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'usage: agentd <command> [options]   (agentd <command> --help for details)',
    '',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Exit codes: 0 ok, 1 failure, 2 bad arguments or input, 3 not found, 4 server unreachable, 130 interrupted.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(await overview());
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const entry = COMMANDS.find((candidate) => candidate.name === name);
  if (!entry) {
    console.error(printable(`agentd: unknown command '${name}'\n\n${await overview()}`));
    return ExitCode.usage;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.help);
    return ExitCode.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    return await reportError(command, error);
  }
}

async function reportError(command: Command, error: unknown): Promise<number> {
  // Error messages can quote a session's failure, and so model, tool or user text: shown, never obeyed.
  const say = (text: string): void => console.error(printable(text));
  if (error instanceof UsageError) {
    say(`agentd ${command.name}: ${error.message}\n\n${command.help}`);
    return ExitCode.usage;
  }
  if (isSettingsError(error)) {
    say(`agentd ${command.name}: ${error.message}`);
    return ExitCode.usage;
  }
  // Past input errors: whatever failed came from a command that already loaded these.
  const { WorkflowFailedError, WorkflowNotFoundError } = await import('@temporalio/client');
  const { NoWorkerAnsweredError } = await import('../client/sessionClient.js');
  const { ENCRYPTED_ENCODING } = await import('../codec/aesGcmCodec.js');
  if (error instanceof WorkflowNotFoundError) {
    say(`agentd ${command.name}: no session ${error.workflowId ?? ''}`.trimEnd());
    return ExitCode.notFound;
  }
  if (error instanceof WorkflowFailedError) {
    const cause = error.cause;
    say(`agentd ${command.name}: session failed: ${cause?.message ?? error.message}`);
    return ExitCode.failure;
  }
  if (error instanceof NoWorkerAnsweredError) {
    say(`agentd ${command.name}: ${error.message}`);
    return ExitCode.unavailable;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (isUnreachable(error)) {
    say(
      `agentd ${command.name}: cannot reach the Temporal server (${message}). Start one with 'agentd dev', or set TEMPORAL_ADDRESS.`,
    );
    return ExitCode.unavailable;
  }
  say(`agentd ${command.name}: ${message}${encryptionHint(message, ENCRYPTED_ENCODING)}`);
  return ExitCode.failure;
}

/** A client without the workers' keys meets encrypted payloads it cannot read; say which settings are missing. */
function encryptionHint(message: string, encryptedEncoding: string): string {
  return message.includes(`Unknown encoding: ${encryptedEncoding}`)
    ? ` (the session's payloads are encrypted: set ${ENCRYPTION_ENV.keyId} and ${ENCRYPTION_ENV.key} to the workers' key)`
    : '';
}

/** Input or settings a user can fix: exit 2 with the message, which names the bad field. */
function isSettingsError(error: unknown): error is Error {
  return (
    error instanceof SessionInputError ||
    error instanceof ConfigError ||
    error instanceof ConnectionSettingsError ||
    error instanceof EncryptionSettingsError ||
    error instanceof StoreSettingError ||
    error instanceof ScheduleInputError
  );
}

function isUnreachable(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /TransportError|UNAVAILABLE|ECONNREFUSED|Failed to connect|tcp connect error/i.test(text);
}

/** Runs the command line of this process and exits with its code. */
export function runCli(): void {
  main(process.argv.slice(2)).then(
    (code) => exitOnceWritten(code),
    (error: unknown) => {
      console.error(error);
      exitOnceWritten(ExitCode.failure);
    },
  );
}

/**
 * Exits after stdout and stderr have flushed: when the reader is a socket (a parent process's
 * pipe) writes are asynchronous, and exiting at once cut a 1,000-session `list --json` short.
 */
function exitOnceWritten(code: number): void {
  let pending = 2;
  const done = () => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

if (require.main === module) runCli();
