/** Text cut to a number of tokens, as a provider stops writing at max_tokens (o200k_base, as the counts). */
import { decode, encode } from 'gpt-tokenizer';

/** The first `tokens` tokens of `text` (all of it when it is shorter); never splits a character. */
export function cutToTokens(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  const encoded = encode(text);
  if (encoded.length <= tokens) return text;
  // A token boundary inside a multi-byte character decodes to U+FFFD: drop it rather than invent one.
  return decode(encoded.slice(0, tokens)).replace(/\uFFFD+$/, '');
}
