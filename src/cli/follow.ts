/**
 * Prints a session's progress as it runs, by polling the `state` query, until its result arrives;
 * then prints what the polls missed from the final state, and the final status last.
 */
import type { SessionClient } from '../client/sessionClient';
import type { SessionResult, SessionState } from '../session/state';
import { printable } from './printable';
import { renderNotice, renderToolCall } from './render';

export async function followSession(
  sessions: SessionClient,
  sessionId: string,
  print: (line: string) => void,
  pollMs = 1000,
): Promise<SessionResult> {
  // Tool names, notices and warnings carry model, tool and user text: shown, never obeyed by the terminal.
  const show = (line: string) => print(printable(line));
  let done = false;
  const result = sessions.result(sessionId).finally(() => {
    done = true;
  });
  let lastSeq = -1;
  let noticesSeen = 0;
  let lastStatus: string | undefined;
  let lastWarning: string | undefined;
  // Steps, tool calls and notices first, the status after them: a poll that lands on the end must
  // not print `completed` above the last steps.
  const report = (state: SessionState) => {
    for (const call of state.lastToolCalls) {
      if (call.seq > lastSeq) show(`[${sessionId}] ${renderToolCall(call)}`);
    }
    lastSeq = Math.max(lastSeq, ...state.lastToolCalls.map((call) => call.seq));
    const { notices, noticesTotal } = state.compaction;
    const fresh = Math.min(noticesTotal - noticesSeen, notices.length);
    for (const notice of notices.slice(notices.length - fresh)) show(`[${sessionId}] ${renderNotice(notice)}`);
    noticesSeen = Math.max(noticesSeen, noticesTotal);
    // Each new breaker warning once (its retry step changes as the breaker half-opens and fails again).
    const warning = state.compaction.warning;
    if (warning !== undefined && warning !== lastWarning) show(`[${sessionId}] warning: ${warning}`);
    lastWarning = warning;
    if (state.status !== lastStatus) {
      show(`[${sessionId}] ${state.status}`);
      lastStatus = state.status;
    }
  };
  // Polling stops as soon as the result is in; a query that fails meanwhile is just skipped.
  const poll = (async () => {
    while (!done) {
      const state = await sessions.state(sessionId).catch(() => undefined);
      // A poll answered after the result arrived is older than the final state: leave it to that.
      if (state !== undefined && !done) report(state);
      await Promise.race([result.catch(() => undefined), sleep(pollMs)]);
    }
  })();
  try {
    const final = await result;
    await poll;
    // The last steps (and the `finish` call) usually happen between two polls.
    if (final.finalState) report(final.finalState);
    return final;
  } catch (error) {
    await poll;
    // A failed session has no result to read its state from; ask once more, briefly.
    await sessions.queryState(sessionId, { waitMs: 5000 }).then(report, () => undefined);
    throw error;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
