/** Prints a session's progress as it runs, by polling the `state` query, until its result arrives. */
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
  let done = false;
  const result = sessions.result(sessionId).finally(() => {
    done = true;
  });
  let lastSeq = -1;
  let noticesSeen = 0;
  let lastStatus: string | undefined;
  const report = (state: SessionState) => {
    if (state.status !== lastStatus) {
      print(printable(`[${sessionId}] ${state.status}`));
      lastStatus = state.status;
    }
    for (const call of state.lastToolCalls) {
      if (call.seq > lastSeq) print(`[${sessionId}] ${renderToolCall(call)}`);
    }
    lastSeq = Math.max(lastSeq, ...state.lastToolCalls.map((call) => call.seq));
    const { notices, noticesTotal } = state.compaction;
    const fresh = Math.min(noticesTotal - noticesSeen, notices.length);
    for (const notice of notices.slice(notices.length - fresh)) print(`[${sessionId}] ${renderNotice(notice)}`);
    noticesSeen = noticesTotal;
  };
  // Polling stops as soon as the result is in; a query that fails meanwhile is just skipped.
  const poll = (async () => {
    while (!done) {
      await sessions.state(sessionId).then(report, () => undefined);
      await Promise.race([result.catch(() => undefined), sleep(pollMs)]);
    }
  })();
  try {
    return await result;
  } finally {
    await poll;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
