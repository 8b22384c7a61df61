/**
 * Keeping the server's database and log to the user who runs it. Apart from the launch because both
 * the files made before it (keepPrivate) and those the server makes (its umask) need it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const PRIVATE_FOLDER = 0o700;
export const PRIVATE_FILE = 0o600;

/**
 * The server's database holds every activity input (task text, user messages) and its log may quote
 * them: their folders are created 0700, and files an earlier run left readable to others are made
 * 0600. The server creates the database itself (an empty file it did not create fails its schema
 * set-up), so it runs under umask 077 too; SQLite gives the -wal and -shm files the database's mode.
 */
export function keepPrivate(dbFile: string, logFile: string | undefined): void {
  const written = logFile === undefined ? [dbFile] : [dbFile, logFile];
  for (const file of written) fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_FOLDER });
  for (const file of [...written, `${dbFile}-wal`, `${dbFile}-shm`]) {
    if (fs.existsSync(file)) fs.chmodSync(file, PRIVATE_FILE);
  }
}

/** The command run by a POSIX shell that sets umask 077 first, then execs it (same pid, same signals). */
export function withPrivateUmask(command: string, args: readonly string[]): [string, string[]] {
  if (process.platform === 'win32') return [command, [...args]];
  return ['/bin/sh', ['-c', 'umask 077 && exec "$0" "$@"', command, ...args]];
}
