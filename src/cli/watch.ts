/**
 * The live view of `agentd watch`: polls the `state` query and draws it — redrawn in place on a
 * terminal, as changed lines otherwise — until the session ends. Output goes through a writer so a
 * test can capture it.
 */
import { ENDED_STATUSES, SessionStatus, type SessionState } from '../session/state';
import { changedLines, freshNotices, renderWatchFrame } from './renderWatch';
import { printable, printableLine } from './printable';

export interface WatchOutput {
  write(text: string): void;
  /** Redraw in place (ANSI cursor movement) instead of printing changed lines. */
  readonly isTTY: boolean;
  /** Terminal width: frame lines are cut to it so the redraw can count lines. */
  readonly columns?: number;
}

export interface WatchOptions {
  pollMs?: number;
  signal?: AbortSignal;
}

/** Ends no session chose: the state is the last one the workflow had, with the run's status. */
const CLOSED_FROM_OUTSIDE = new Set<string>([SessionStatus.terminated, SessionStatus.timedOut]);

/** Draws until the session ends and returns its last state; a session that does not exist throws at once. */
export async function watchSession(
  readState: (sessionId: string) => Promise<SessionState>,
  sessionId: string,
  out: WatchOutput,
  { pollMs = 1000, signal }: WatchOptions = {},
): Promise<SessionState> {
  let frame: string[] = [];
  let noticesSeen = 0;
  let last: SessionState | undefined;
  for (;;) {
    let state: SessionState;
    try {
      state = await readState(sessionId);
    } catch (error) {
      // The first answer decides whether there is a session; later a failed poll (a worker
      // restarting) is only a gap in the picture.
      if (last === undefined) throw error;
      await sleep(pollMs, signal);
      continue;
    }
    last = state;
    const notices = freshNotices(state, noticesSeen);
    noticesSeen = notices.seen;
    // One visible line per frame line: a control character or newline from the model must not move the cursor.
    const next = renderWatchFrame(state).map((line) => fit(printableLine(line), out));
    if (out.isTTY) {
      // Up to the first line of the old frame and clear below it; notices print above the new
      // frame and scroll away with the terminal, so each is seen once.
      if (frame.length > 0) out.write(`\x1b[${frame.length}F\x1b[J`);
      for (const line of notices.lines) out.write(`${printable(line)}\n`);
      out.write(`${next.join('\n')}\n`);
    } else {
      for (const line of notices.lines) out.write(`${printable(line)}\n`);
      for (const line of changedLines(frame, next)) out.write(`${line}\n`);
    }
    frame = next;
    if (CLOSED_FROM_OUTSIDE.has(state.status)) out.write(`the workflow closed without the session ending (${state.status})\n`);
    if (ENDED_STATUSES.has(state.status) || signal?.aborted) return state;
    await sleep(pollMs, signal);
  }
}

function fit(line: string, out: WatchOutput): string {
  if (!out.isTTY || out.columns === undefined || line.length < out.columns) return line;
  return `${line.slice(0, Math.max(out.columns - 2, 1))}…`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
