/**
 * The rules for a session id, checked at the client, in the workflow and before a workspace folder is made.
 * Pure (no I/O), so the workflow bundle can import it.
 *
 * The id names the workflow, the store's rows and the workspace folder, so it must be one harmless folder
 * name: `../x`, `.`, `a/b` or a name too long for the file system would leave a session retrying its
 * workspace claim forever (issue 17).
 */

/** Longest session id; well under the 255-byte limit of a folder name, with room for an archive suffix. */
const SESSION_ID_MAX_CHARS = 128;

/**
 * A letter or digit first, then letters, digits, `.`, `_`, `-` or `:`. The colon is there for
 * Temporal Schedules, which name each run `<workflow id>-<time, RFC 3339>` (e.g. `…-2026-12-05T03:00:00Z`);
 * it is an ordinary character in a Linux folder name.
 */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** Why `id` is not a usable session id, or undefined when it is. */
export function sessionIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'must not be empty';
  if (id.length > SESSION_ID_MAX_CHARS) return `is ${id.length} characters long; at most ${SESSION_ID_MAX_CHARS} are allowed`;
  if (!SESSION_ID_PATTERN.test(id)) {
    return `${JSON.stringify(id)} is not allowed: use letters, digits, ".", "_", "-" and ":", starting with a letter or digit`;
  }
  return undefined;
}
