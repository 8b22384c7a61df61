/**
 * Which user a root worker runs a session's commands as. Each workspace gets a uid of its own, so
 * the kernel's per-user process limit (RLIMIT_NPROC) counts each session apart: one session holding
 * its 256 processes no longer makes another session's `ls` fail to fork (issue 26), as it did when
 * every session ran as `nobody`.
 */
import { createHash } from 'node:crypto';

/**
 * Uids from 2^30 on: far above the ones distributions hand out (system users, people, the 100000+
 * ranges of /etc/subuid) and below 2^31, which some tools read as negative.
 */
const FIRST_SESSION_UID = 2 ** 30;
/** 2^29 uids: two of a thousand workspaces share one with odds of about 1 in 1,000. */
const SESSION_UIDS = 2 ** 29;

/** The uid a workspace's commands run as, the same for every command and worker. */
export function sessionUid(workspace: string): number {
  const digest = createHash('sha256').update(workspace).digest();
  return FIRST_SESSION_UID + (digest.readUInt32BE(0) % SESSION_UIDS);
}
