/** Short stable hashes for ids the workflow derives (a child's id, a step's trace): not for secrets. Pure. */

/**
 * 32 bits of FNV-1a over `text`, started from a state `seed` moves, as 8 hex digits. A final mix
 * (MurmurHash3's) spreads a change in the last character over every digit: keys that differ only
 * in a step number still get ids that look unrelated.
 */
export function fnv1aHex(text: string, seed = 0): string {
  let hash = (0x811c9dc5 ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0).toString(16).padStart(8, '0');
}
