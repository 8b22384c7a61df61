/**
 * The marker inside a head-and-tail view of a tool output: it names the stored original so the
 * agent (and the simulator playing one) can page through it with `read_output`. Pure.
 */

export function viewMarker(sourceSeq: number, cutChars: number, totalChars: number, resumeOffset: number): string {
  return (
    `\n[… ${cutChars} of ${totalChars} chars cut from this output (seq ${sourceSeq}); ` +
    `read_output with seq=${sourceSeq} offset=${resumeOffset} pages through the original …]\n`
  );
}

/** Where a view's marker says the original continues, or undefined when `text` is not a view. */
export function parseViewMarker(text: string): { seq: number; offset: number } | undefined {
  const match = /read_output with seq=(\d+) offset=(\d+) pages through the original/.exec(text);
  return match ? { seq: Number(match[1]), offset: Number(match[2]) } : undefined;
}
