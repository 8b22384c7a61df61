/** Which host a worker's activities run on: the one its workspaces live on. */
import { hostname } from 'node:os';
import type { ActivityDeps } from './deps';

/** The configured host id; a worker embedded without one (a test, a program) is its machine. */
export function hostIdOf({ host }: Pick<ActivityDeps, 'host'>): string {
  return host?.hostId ?? hostname();
}
