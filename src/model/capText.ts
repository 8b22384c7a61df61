/** `text` cut to `maxChars` characters, an ellipsis marking the cut. Pure. */
export function capText(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…`;
}
