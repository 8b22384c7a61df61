/** The `agentd` command line: dispatches to a command and turns known errors into exit codes. */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ENCRYPTED_ENCODING } from '../codec/aesGcmCodec';
import { NoWorkerAnsweredError } from '../client/sessionClient';
import { ENCRYPTION_ENV, EncryptionSettingsError } from '../codec/encryptionKeys';
import { ConnectionSettingsError } from '../connection/options';
import { SessionInputError } from '../session/input';
import { ConfigError } from '../configError';
import { ExitCode, UsageError, type Command } from './command';
import { approveCommand } from './commands/approve';
import { cancelCommand } from './commands/cancel';
import { compactCommand } from './commands/compact';
import { demoCommand } from './commands/demo';
import { devCommand } from './commands/dev';
import { listCommand } from './commands/list';
import { sendCommand } from './commands/send';
import { setupCommand } from './commands/setup';
import { simCommand } from './commands/sim';
import { startCommand } from './commands/start';
import { statusCommand } from './commands/status';
import { transcriptCommand } from './commands/transcript';
import { watchCommand } from './commands/watch';
import { workerCommand } from './commands/worker';

const COMMANDS: readonly Command[] = [
  setupCommand,
  demoCommand,
  devCommand,
  workerCommand,
  simCommand,
  startCommand,
  statusCommand,
  watchCommand,
  sendCommand,
  compactCommand,
  listCommand,
  approveCommand,
  cancelCommand,
  transcriptCommand,
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    'usage: agentd <command> [options]   (agentd <command> --help for details)',
    '',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Exit codes: 0 ok, 1 failure, 2 bad arguments or input, 3 not found, 4 server unreachable, 130 interrupted.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(overview());
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    console.error(`agentd: unknown command '${name}'\n\n${overview()}`);
    return ExitCode.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.help);
    return ExitCode.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    return reportError(command, error);
  }
}

function reportError(command: Command, error: unknown): number {
  if (error instanceof UsageError) {
    console.error(`agentd ${command.name}: ${error.message}\n\n${command.help}`);
    return ExitCode.usage;
  }
  if (isSettingsError(error)) {
    console.error(`agentd ${command.name}: ${error.message}`);
    return ExitCode.usage;
  }
  if (error instanceof WorkflowNotFoundError) {
    console.error(`agentd ${command.name}: no session ${error.workflowId ?? ''}`.trimEnd());
    return ExitCode.notFound;
  }
  if (error instanceof WorkflowFailedError) {
    const cause = error.cause;
    console.error(`agentd ${command.name}: session failed: ${cause?.message ?? error.message}`);
    return ExitCode.failure;
  }
  if (error instanceof NoWorkerAnsweredError) {
    console.error(`agentd ${command.name}: ${error.message}`);
    return ExitCode.unavailable;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (isUnreachable(error)) {
    console.error(
      `agentd ${command.name}: cannot reach the Temporal server (${message}). Start one with 'agentd dev', or set TEMPORAL_ADDRESS.`,
    );
    return ExitCode.unavailable;
  }
  console.error(`agentd ${command.name}: ${message}${encryptionHint(message)}`);
  return ExitCode.failure;
}

/** A client without the workers' keys meets encrypted payloads it cannot read; say which settings are missing. */
function encryptionHint(message: string): string {
  return message.includes(`Unknown encoding: ${ENCRYPTED_ENCODING}`)
    ? ` (the session's payloads are encrypted: set ${ENCRYPTION_ENV.keyId} and ${ENCRYPTION_ENV.key} to the workers' key)`
    : '';
}

/** Input or settings a user can fix: exit 2 with the message, which names the bad field. */
function isSettingsError(error: unknown): error is Error {
  return (
    error instanceof SessionInputError ||
    error instanceof ConfigError ||
    error instanceof ConnectionSettingsError ||
    error instanceof EncryptionSettingsError
  );
}

function isUnreachable(error: unknown): boolean {
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /TransportError|UNAVAILABLE|ECONNREFUSED|Failed to connect|tcp connect error/i.test(text);
}

/** Runs the command line of this process and exits with its code. */
export function runCli(): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(ExitCode.failure);
    },
  );
}

if (require.main === module) runCli();
