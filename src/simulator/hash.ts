/** Short stable hashes the script uses for tool-call ids and file names. */
import { createHash } from 'node:crypto';

/** 8 hex chars of sha256: stable across runs and machines, which Math.random or Date never are. */
export function shortHash(...parts: readonly (string | number)[]): string {
  const hash = createHash('sha256');
  // A separator no message contains keeps ('ab','c') and ('a','bc') apart.
  for (const part of parts) hash.update(`${String(part)}\u0000`);
  return hash.digest('hex').slice(0, 8);
}

/** A stable non-negative integer from a hash, for picking values inside a range. */
export function hashInt(...parts: readonly (string | number)[]): number {
  return Number.parseInt(shortHash(...parts), 16);
}
