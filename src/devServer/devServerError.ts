/**
 * The one error a dev server start fails with, its `code` saying which way: the start retries a
 * port it picked on `port-in-use`, and tests tell the failures apart. Its own file because every
 * step of a start throws it: the option check, the launch and the readiness wait.
 */
export const DevServerErrorCode = {
  /** No Temporal CLI found; see ensureTemporalCli. */
  cliMissing: 'cli-missing',
  invalidOptions: 'invalid-options',
  /** The binary could not be executed at all. */
  spawnFailed: 'spawn-failed',
  /** A port the server needs is taken by another process. */
  portInUse: 'port-in-use',
  /** The server exited before it was ready. */
  exitedEarly: 'exited-early',
  /** The server kept running but never answered the health check in time. */
  readyTimeout: 'ready-timeout',
} as const;
export type DevServerErrorCode = (typeof DevServerErrorCode)[keyof typeof DevServerErrorCode];

export class DevServerError extends Error {
  override readonly name = 'DevServerError';
  /** For 'port-in-use': the port that was taken, when the server's log names it. */
  readonly port?: number;

  constructor(
    readonly code: DevServerErrorCode,
    message: string,
    options?: ErrorOptions & { readonly port?: number },
  ) {
    super(message, options);
    if (options?.port !== undefined) this.port = options.port;
  }
}
