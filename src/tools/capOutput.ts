/** Cuts long text down to a character budget, keeping its head and tail around an "omitted" marker. */

/** The share of the budget given to the head; the tail (where errors and summaries usually are) gets the rest. */
const HEAD_SHARE = 0.8;

function omittedMarker(omittedChars: number): string {
  return `\n[... ${omittedChars} chars omitted ...]\n`;
}

/**
 * How many head and tail chars fit in `capChars` together with the marker, for a text of `totalChars`.
 * The marker is sized for omitting all of the text, so the result never overshoots the cap.
 */
export function headTailSizes(capChars: number, totalChars: number): { head: number; tail: number } {
  const room = Math.max(0, capChars - omittedMarker(totalChars).length);
  const head = Math.floor(room * HEAD_SHARE);
  return { head, tail: room - head };
}

/**
 * Joins a head and tail around the marker; shared with OutputCollector, which never holds the middle.
 * Backs off one char at a cut that would split a surrogate pair, so the result stays valid UTF-16.
 */
export function joinCut(head: string, tail: string, omittedChars: number): string {
  let h = head;
  let t = tail;
  let omitted = omittedChars;
  if (h.length > 0 && isHighSurrogate(h.charCodeAt(h.length - 1))) {
    h = h.slice(0, -1);
    omitted += 1;
  }
  if (t.length > 0 && isLowSurrogate(t.charCodeAt(0))) {
    t = t.slice(1);
    omitted += 1;
  }
  return h + omittedMarker(omitted) + t;
}

/** Returns `text` unchanged when it fits in `capChars`; otherwise head + marker + tail, at most `capChars` long. */
export function capOutput(text: string, capChars: number): string {
  if (text.length <= capChars) return text;
  const { head, tail } = headTailSizes(capChars, text.length);
  // Too small a cap for any marker: a plain cut is the only thing that fits.
  if (head + tail === 0) return text.slice(0, Math.max(0, capChars));
  return joinCut(text.slice(0, head), text.slice(text.length - tail), text.length - head - tail);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
