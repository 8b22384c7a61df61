/**
 * Head-and-tail views of large tool-call arguments
 * (DESIGN §5 "Views of large tool-call arguments"): the long string values of an assistant message's arguments are cut around a
 * marker naming the stored original, and the arguments stay valid JSON, so the request that carries
 * the view is still well formed. Pure.
 */
import type { ChatMessage, ToolCall } from './messages';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/** A string value shorter than this is never cut: a path, a flag, a short command. */
const MIN_CUT_VALUE_CHARS = 256;
/** What a cut value keeps at least, head and tail together. */
const MIN_KEPT_VALUE_CHARS = 64;

/** The marker inside a cut argument value: the original stays readable whole by seq. */
function argumentMarker(sourceSeq: number, cutChars: number, totalChars: number): string {
  return `\n[… ${cutChars} of ${totalChars} chars of this argument cut (seq ${sourceSeq}); read_output with seq=${sourceSeq} shows the call whole …]\n`;
}

interface Leaf {
  readonly call: number;
  readonly path: readonly (string | number)[];
  readonly length: number;
  /** Characters the value takes in the arguments' JSON text, quotes and escapes included. */
  readonly serialized: number;
}

/**
 * `message` with its longest argument values cut until the message keeps about `keptChars` (head
 * and tail of each cut value in the `headShare` proportion). Arguments that are not JSON, and
 * messages already small enough, come back unchanged.
 */
export function cutToolCallArguments(message: AssistantMessage, sourceSeq: number, keptChars: number, headShare: number): AssistantMessage {
  const calls = message.tool_calls ?? [];
  const parsed = calls.map((call) => parseObject(call.function.arguments));
  const leaves: Leaf[] = [];
  parsed.forEach((args, call) => {
    if (args !== undefined) collectLeaves(args, [], call, leaves);
  });
  const total = (message.content ?? '').length + calls.reduce((sum, call) => sum + call.function.arguments.length, 0);
  let excess = total - keptChars;
  if (excess <= 0 || leaves.length === 0) return message;
  leaves.sort((a, b) => b.length - a.length);
  for (const leaf of leaves) {
    if (excess <= 0 || leaf.length < MIN_CUT_VALUE_CHARS) break;
    // `excess` is in JSON text characters; escapes (newlines, quotes) make a value longer there.
    const perChar = leaf.serialized / Math.max(1, leaf.length);
    const keep = Math.max(MIN_KEPT_VALUE_CHARS, Math.floor((leaf.serialized - excess) / perChar));
    if (keep >= leaf.length) continue;
    const args = parsed[leaf.call]!;
    const value = getAt(args, leaf.path) as string;
    const head = Math.round(keep * headShare);
    const tail = keep - head;
    setAt(args, leaf.path, value.slice(0, head) + argumentMarker(sourceSeq, leaf.length - keep, leaf.length) + (tail > 0 ? value.slice(-tail) : ''));
    excess -= leaf.serialized - Math.ceil(keep * perChar);
  }
  const cut: ToolCall[] = calls.map((call, index) => {
    const args = parsed[index];
    return args === undefined ? call : { ...call, function: { ...call.function, arguments: JSON.stringify(args) } };
  });
  return { ...message, tool_calls: cut };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function collectLeaves(value: unknown, path: (string | number)[], call: number, out: Leaf[]): void {
  if (typeof value === 'string') out.push({ call, path, length: value.length, serialized: JSON.stringify(value).length });
  else if (Array.isArray(value)) value.forEach((item, index) => collectLeaves(item, [...path, index], call, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) collectLeaves(item, [...path, key], call, out);
  }
}

function getAt(root: unknown, path: readonly (string | number)[]): unknown {
  let node = root;
  for (const key of path) node = (node as Record<string | number, unknown>)[key];
  return node;
}

function setAt(root: unknown, path: readonly (string | number)[], value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}
