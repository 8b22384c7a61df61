/**
 * The console's JSON API over the same client API and validation the CLI uses: `SessionClient` for
 * state, messages, approvals and cancellation, update `compactNow` for "compact now", the store for
 * the transcript, `listSessions` (Temporal's visibility index) for the fleet.
 */
import type { Client } from '@temporalio/client';
import { renderContextChart } from '../chart/svgChart';
import type { SessionClient } from '../client/sessionClient';
import { listSessions, type SessionSummary } from '../client/sessionList';
import { ApproveRequestSchema } from '../policy/budget';
import { compactNowUpdate, InterruptRequestSchema, MessageSignalSchema, type InterruptResult } from '../session/definitions';
import type { SessionState } from '../session/state';
import { describeZodError } from '../session/validation';
import type { TranscriptStore } from '../store/transcriptStore';
import { ConsoleInputError } from './errors';
import { entryOf, newestOfKind, stepContextTokens, type TranscriptEntry } from './transcriptView';

export interface ConsoleDeps {
  client: Client;
  sessions: SessionClient;
  store: TranscriptStore;
}

/** How long the fleet page waits for one running session's state before showing the index's figures alone. */
const FLEET_STATE_WAIT_MS = 2_000;
/** The session page's wait; longer, since it is one session the operator asked for. */
const SESSION_STATE_WAIT_MS = 8_000;
export const FLEET_PAGE_SIZE = 25;
const TRANSCRIPT_PAGE = 500;

/** A fleet row: the index's summary, with the live figures of a running session when it answered. */
export interface FleetRow extends SessionSummary {
  turn?: number;
  contextTokens?: number;
  window?: number;
  trigger?: number;
  paused?: string;
  breakerWarning?: string;
  /** Cached over prompt tokens of a running session (the index does not hold it, so others have none). */
  cacheHitRatio?: number;
}

export interface FleetPage {
  rows: FleetRow[];
  nextPageToken?: string;
}

function optionalText(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name)?.trim();
  return value ? value : undefined;
}

export async function fleetPage(deps: ConsoleDeps, params: URLSearchParams): Promise<FleetPage> {
  const status = optionalText(params, 'status');
  const model = optionalText(params, 'model');
  const pageToken = optionalText(params, 'page');
  const page = await listSessions(deps.client, {
    pageSize: FLEET_PAGE_SIZE,
    ...(status ? { status } : {}),
    ...(model ? { model } : {}),
    ...(pageToken ? { nextPageToken: Buffer.from(pageToken, 'base64url') } : {}),
  });
  // Only this page's running sessions are asked, at once: the cost of a page stays one page, however large the fleet.
  const rows = await Promise.all(page.sessions.map((summary) => withLiveState(deps, summary)));
  return { rows, ...(page.nextPageToken ? { nextPageToken: Buffer.from(page.nextPageToken).toString('base64url') } : {}) };
}

async function withLiveState(deps: ConsoleDeps, summary: SessionSummary): Promise<FleetRow> {
  if (summary.runStatus !== 'RUNNING') return summary;
  const state = await deps.sessions.queryState(summary.sessionId, { waitMs: FLEET_STATE_WAIT_MS }).catch(() => undefined);
  if (!state) return summary;
  return {
    ...summary,
    status: state.status,
    model: state.model,
    step: state.step,
    turn: state.turn,
    costUsd: state.spend.costUsd,
    ...(state.spend.cacheHitRatio !== undefined ? { cacheHitRatio: state.spend.cacheHitRatio } : {}),
    contextTokens: state.context.tokens,
    window: state.context.window,
    trigger: state.compaction.trigger,
    contextFill: state.context.window > 0 ? state.context.tokens / state.context.window : summary.contextFill,
    ...(state.paused ? { paused: state.paused.reason } : {}),
    ...(state.compaction.warning ? { breakerWarning: state.compaction.warning } : {}),
  };
}

export interface SessionPage {
  state: SessionState;
  memory?: TranscriptEntry;
  summary?: TranscriptEntry;
}

export async function sessionPage(deps: ConsoleDeps, sessionId: string): Promise<SessionPage> {
  const state = await stateOf(deps, sessionId);
  const rows = await deps.store.list(sessionId);
  const memory = newestOfKind(rows, 'memory');
  const summary = newestOfKind(rows, 'summary');
  return { state, ...(memory ? { memory } : {}), ...(summary ? { summary } : {}) };
}

async function stateOf(deps: ConsoleDeps, sessionId: string): Promise<SessionState> {
  const { status } = await deps.sessions.handle(sessionId).describe();
  // A closed session answers from its result (no worker needed); a running one within a limit, so a hung worker cannot hang the page.
  if (status.name !== 'RUNNING') return deps.sessions.state(sessionId);
  return deps.sessions.queryState(sessionId, { waitMs: SESSION_STATE_WAIT_MS });
}

export async function transcriptPage(deps: ConsoleDeps, sessionId: string, params: URLSearchParams): Promise<{ entries: TranscriptEntry[]; more: boolean }> {
  const after = Number(params.get('afterSeq') ?? '0');
  const rows = await deps.store.list(sessionId, { afterSeq: Number.isInteger(after) && after > 0 ? after : 0, limit: TRANSCRIPT_PAGE + 1 });
  return { entries: rows.slice(0, TRANSCRIPT_PAGE).map(entryOf), more: rows.length > TRANSCRIPT_PAGE };
}

export async function contextChartSvg(deps: ConsoleDeps, sessionId: string): Promise<string> {
  const state = await stateOf(deps, sessionId);
  const values = stepContextTokens(await deps.store.list(sessionId));
  const notices = state.compaction.notices.filter((notice) => notice.failed === undefined);
  return renderContextChart({
    title: `Context per step: ${sessionId} (${state.model})`,
    steps: Math.max(values.length, 2),
    window: state.context.window,
    trigger: state.compaction.trigger,
    series: [{ label: 'prompt tokens of the step', color: '#2471a3', values }],
    marks: notices.map((notice) => ({
      step: notice.step,
      label: `${notice.strategy} ${Math.round(notice.tokensBefore / 1000)}K→${Math.round(notice.tokensAfter / 1000)}K`,
      before: notice.tokensBefore,
      after: notice.tokensAfter,
    })),
  });
}

/** The body of a control, checked by the schemas the CLI and the workflow use. */
function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ConsoleInputError('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

export async function sendMessage(deps: ConsoleDeps, sessionId: string, body: unknown): Promise<{ sent: true }> {
  const message = MessageSignalSchema.safeParse(objectBody(body));
  if (!message.success) throw new ConsoleInputError(`invalid message: ${describeZodError(message.error)}`, { cause: message.error });
  await deps.sessions.send(sessionId, message.data.text, { now: message.data.now === true });
  return { sent: true };
}

export async function interrupt(deps: ConsoleDeps, sessionId: string, body: unknown): Promise<InterruptResult> {
  const request = InterruptRequestSchema.safeParse(objectBody(body));
  if (!request.success) throw new ConsoleInputError(`invalid interrupt: ${describeZodError(request.error)}`, { cause: request.error });
  return deps.sessions.interrupt(sessionId, request.data);
}

export function compactNow(deps: ConsoleDeps, sessionId: string): Promise<unknown> {
  return deps.sessions.handle(sessionId).executeUpdate(compactNowUpdate);
}

export async function approve(deps: ConsoleDeps, sessionId: string, body: unknown): Promise<unknown> {
  const request = ApproveRequestSchema.safeParse(objectBody(body));
  if (!request.success) throw new ConsoleInputError(`invalid approval: ${describeZodError(request.error)}`, { cause: request.error });
  return deps.sessions.approve(sessionId, request.data);
}

export async function cancel(deps: ConsoleDeps, sessionId: string): Promise<{ cancelRequested: true }> {
  await deps.sessions.handle(sessionId).cancel();
  return { cancelRequested: true };
}
