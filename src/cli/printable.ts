/**
 * Text from models, tools and users made safe for a terminal: every control character is shown as a visible
 * escape instead of acting on the terminal. Pure.
 *
 * Why: a tool output or answer holding `ESC[2J` or `ESC]0;title BEL` cleared the operator's screen and set its
 * title when `start --follow`, `status` or `transcript` printed it raw (issue 17). C0 controls, DEL and the C1
 * range (which some terminals also obey, U+009B is a one-byte CSI) become `\x1b`-style escapes, NUL included;
 * bidirectional overrides, which can make a line read differently from what it holds, become `\u{202e}`.
 * `--json` output is never passed through here: scripts get the exact text.
 */

// Everything below U+0020 but \t and \n, DEL and C1; and the bidi embedding, override and isolate marks.
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with its control characters shown as escapes; `\n` and `\t` are kept, for layout. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/** For one-line fields (a table cell, a frame line): newlines and tabs are shown as escapes too. */
export function printableLine(text: string): string {
  return printable(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}
