/**
 * One transcript row as the console's API sends it and the session page draws it. A declaration
 * file, so both programs read the one type: the server's (transcriptView.ts builds it, and checks
 * it against its own message and seq-run types) and the browser scripts', which compile on their
 * own with `rootDir` here and would otherwise pull a server module into their output.
 */

/** An inclusive run of seqs, as `src/policy/seqRuns.ts` writes them. */
export type EntrySeqRun = readonly [first: number, last: number];

export type EntryKind = 'message' | 'summary' | 'view' | 'memory';

export interface TranscriptEntry {
  seq: number;
  role: 'system' | 'user' | 'assistant' | 'tool';
  tokens: number;
  kind: EntryKind;
  text: string;
  /** Characters cut from `text`. */
  cutChars: number;
  toolCalls: { name: string; arguments: string }[];
  /** A tool result: the tool that made it, and whether it failed. */
  toolName?: string;
  isError?: boolean;
  /** A summary: the original seqs it covers, as runs. */
  covers?: EntrySeqRun[];
  /** A view (a cut tool result): the seq of the whole original. */
  replaces?: number;
  createdAt: string;
}
