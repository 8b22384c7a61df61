/** What the state query shows of a session's recent past: its newest warnings and tool calls, a few of each. */
import { log } from '@temporalio/workflow';
import type { ToolCallRecord } from '../session/state';
import type { SessionCarry } from './sessionCarry';

const TOOL_CALLS_SHOWN = 10;
const WARNINGS_KEPT = 20;

export class SessionNotes {
  constructor(
    private readonly sessionId: string,
    /** This run's slices of the session carry, changed in place. */
    private readonly carried: Pick<SessionCarry, 'warnings' | 'lastToolCalls'>,
  ) {}

  warn(message: string): void {
    log.warn(message, { sessionId: this.sessionId });
    this.carried.warnings.push(message);
    if (this.carried.warnings.length > WARNINGS_KEPT) this.carried.warnings.shift();
  }

  toolCall(record: ToolCallRecord): void {
    this.carried.lastToolCalls.push(record);
    if (this.carried.lastToolCalls.length > TOOL_CALLS_SHOWN) this.carried.lastToolCalls.shift();
  }
}
