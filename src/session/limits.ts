/**
 * Size limits on user text (the task and `message` signals), checked at the client. Pure.
 *
 * Why: a task or message bigger than the model's window cannot be sent whole, and Temporal refuses any
 * payload over 2 MiB (warning from 512 KiB). The client refuses what is over the limit; text that arrives
 * anyway (the stock CLI) is stored whole and shown in the context as a head-and-tail view.
 */

/** Default for `AGENTD_MAX_USER_TEXT_BYTES`: 256 KiB of UTF-8, about 64K tokens. */
export const DEFAULT_MAX_USER_TEXT_BYTES = 256 * 1024;

/** The highest limit an operator may set: a bigger text would not fit one Temporal payload with room to spare. */
export const MAX_USER_TEXT_BYTES_CEILING = 1536 * 1024;

/** Why `text` is too big for `field`, or undefined when it fits. */
export function userTextProblem(text: string, maxBytes: number): string | undefined {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes <= maxBytes) return undefined;
  return `is ${bytes} bytes; at most ${maxBytes} are allowed (AGENTD_MAX_USER_TEXT_BYTES); put large inputs in a file in the workspace`;
}
