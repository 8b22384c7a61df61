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
  let lastStep = 0;
  let noticesSeen = 0;
  let lastStatus: string | undefined;
  let lastWarning: string | undefined;
  // Steps, tool calls and notices first, in step order, the status after them: a poll that lands on
  // the end must not print `completed` above the last steps, nor a compaction below the steps after it.
  const report = (state: SessionState) => {
    const calls = state.lastToolCalls.filter((call) => call.seq > lastSeq);
    // The state keeps only the newest calls: when none of them was printed before, the ones between were missed.
    const first = calls[0];
    if (first !== undefined && calls.length === state.lastToolCalls.length && first.step > lastStep + 1) {
      const missed = first.step - 1 === lastStep + 1 ? `step ${lastStep + 1}` : `steps ${lastStep + 1}–${first.step - 1}`;
      show(`[${sessionId}] ${missed} ran between two looks (agentd transcript ${sessionId} lists every one)`);
    }
    const { notices, noticesTotal } = state.compaction;
    const fresh = notices.slice(notices.length - Math.min(noticesTotal - noticesSeen, notices.length));
    const lines = [
      ...fresh.map((notice) => ({ step: notice.step, order: 0, text: renderNotice(notice) })),
      ...calls.map((call) => ({ step: call.step, order: 1, text: renderToolCall(call) })),
    ].sort((a, b) => a.step - b.step || a.order - b.order);
    for (const line of lines) show(`[${sessionId}] ${line.text}`);
    lastSeq = Math.max(lastSeq, ...calls.map((call) => call.seq));
    lastStep = Math.max(lastStep, ...calls.map((call) => call.step));
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
