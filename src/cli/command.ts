/** The shape of one `agentd` subcommand; main.ts dispatches to these. */

/** Exit codes shared by every command, so scripts can tell failures apart. */
export const ExitCode = {
  ok: 0,
  /** The session or the command itself failed. */
  failure: 1,
  /** Bad arguments or bad input: nothing was started. */
  usage: 2,
  /** The session, workflow or file asked for does not exist. */
  notFound: 3,
  /** The Temporal server (or another required service) could not be reached. */
  unavailable: 4,
  /** Interrupted by Ctrl-C. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface Command {
  readonly name: string;
  /** One line for `agentd --help`. */
  readonly summary: string;
  /** Full text for `agentd <name> --help`. */
  readonly help: string;
  run(argv: string[]): Promise<number>;
}

/** A bad command line; main.ts prints the message and the command's help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
