/**
 * Starting and steering sessions from code: input resolved and validated before anything is sent,
 * then the workflow started under the public names of `session/definitions`.
 */
import { Client, ServiceError, WorkflowExecutionAlreadyStartedError, type WorkflowExecutionStatusName, type WorkflowHandle } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { agentdDataConverter } from '../codec/dataConverter';
import type { EncryptionKeys } from '../codec/encryptionKeys';
import { connectTemporal } from '../connection/connect';
import { resolveConnectionSettings, type ConnectionSettings } from '../connection/options';
import type { PriceOverrides } from '../model/prices';
import type { ApproveRequest } from '../policy/budget';
import {
  approveUpdate,
  interruptUpdate,
  messageSignal,
  REPLACE_CLOSED_MEMO,
  stateQuery,
  TASK_QUEUE,
  WORKFLOW_TYPE,
  type InterruptRequest,
  type InterruptResult,
} from '../session/definitions';
import { SessionInputError } from '../session/input';
import { DEFAULT_MAX_USER_TEXT_BYTES, userTextProblem } from '../session/limits';
import { resolveStart, type SessionRequest } from '../session/resolve';
import { ENDED_STATUSES, SessionStatus, type ApproveResult, type SessionResult, type SessionState } from '../session/state';
import { missingSearchAttributes, MissingSearchAttributesError } from './searchAttributeSetup';
import { startSearchAttributes } from '../session/startAttributes';


export function newSessionId(): string {
  return `agent-${randomBytes(6).toString('hex')}`;
}

/** What a client needs to reach the cluster and read agentd's payloads (an `AgentdConfig` fits). */
export interface ClientSettings {
  connection: ConnectionSettings;
  /** The same keys the workers use; without them an encrypted session's state cannot be read. */
  encryption?: EncryptionKeys;
}

/**
 * A Temporal client for agentd: from settings (TLS, API key, encryption — see `readConfig`), or
 * from a plain address and namespace for a local server.
 */
export async function connectClient(target: ClientSettings | string, namespace = 'default'): Promise<Client> {
  const settings: ClientSettings =
    typeof target === 'string'
      ? { connection: resolveConnectionSettings({ TEMPORAL_ADDRESS: target, TEMPORAL_NAMESPACE: namespace }) }
      : target;
  const connection = await connectTemporal(settings.connection);
  const dataConverter = agentdDataConverter(settings.encryption);
  return new Client({ connection, namespace: settings.connection.namespace, ...(dataConverter ? { dataConverter } : {}) });
}

export class SessionClient {
  /** `prices` come before gpt-tokenizer's table (the CLI passes `AGENTD_PRICES`). */
  /** `maxUserTextBytes`: the largest task or message sent (the CLI passes `AGENTD_MAX_USER_TEXT_BYTES`). */
  constructor(
    private readonly client: Client,
    private readonly prices: PriceOverrides = {},
    private readonly limits: { maxUserTextBytes?: number } = {},
  ) {}

  private encryptsPayloads(): boolean {
    return this.client.options.loadedDataConverter.payloadCodecs.length > 0;
  }

  private maxUserTextBytes(): number {
    return this.limits.maxUserTextBytes ?? DEFAULT_MAX_USER_TEXT_BYTES;
  }

  /**
   * Starts a session under a new id. An id already used is refused with a SessionIdTakenError, whether that
   * session runs or has closed; `replaceClosed` takes over the id of a closed one (its transcript is archived
   * in the store as `<id>@<its first run>`). A running session is never replaced.
   */
  async start(request: SessionRequest, options: StartOptions = {}): Promise<WorkflowHandle> {
    const sessionId = options.sessionId ?? newSessionId();
    const input = resolveStart(request, { sessionId, maxUserTextBytes: this.maxUserTextBytes(), prices: this.prices });
    try {
      return await this.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue: TASK_QUEUE,
        workflowId: sessionId,
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: options.replaceClosed ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
        ...(options.replaceClosed ? { memo: { [REPLACE_CLOSED_MEMO]: true } } : {}),
        typedSearchAttributes: startSearchAttributes(this.encryptsPayloads() ? undefined : input.model),
      });
    } catch (error) {
      if (mentionsSearchAttributes(error)) await this.throwIfAttributesMissing(error);
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const running = await this.handle(sessionId)
        .describe()
        .then((description) => description.status.name === 'RUNNING')
        .catch(() => false);
      throw new SessionIdTakenError(sessionId, running, { cause: error });
    }
  }

  /** After a start refused over its search attributes: the MissingSearchAttributesError naming them, if some are missing. */
  private async throwIfAttributesMissing(cause: unknown): Promise<void> {
    const namespace = this.client.options.namespace;
    const missing = await missingSearchAttributes(this.client.connection.operatorService, namespace).catch(() => undefined);
    if (missing && missing.length > 0) throw new MissingSearchAttributesError(namespace, missing.map((key) => key.name), { cause });
  }

  handle(sessionId: string): WorkflowHandle {
    return this.client.workflow.getHandle(sessionId);
  }

  /**
   * The session's state: from the `state` query while it runs, from its result once it completed
   * (a query would need a worker to replay the closed workflow, and none may be left running). A run
   * closed from outside (terminated, timed out) answers the last state it had, `waiting_for_approval`
   * say, forever: its status then comes from the run's.
   */
  async state(sessionId: string): Promise<SessionState> {
    const handle = this.handle(sessionId);
    const { status } = await handle.describe();
    if (status.name === 'COMPLETED') {
      const { finalState } = (await handle.result()) as SessionResult;
      if (finalState) return finalState;
    }
    const state = await this.queryState(sessionId);
    const closedAs = CLOSED_FROM_OUTSIDE[status.name];
    return closedAs === undefined || ENDED_STATUSES.has(state.status) ? state : { ...state, status: closedAs };
  }

  /** The `state` query, which waits for a worker (the server gives up after 30 s); `waitMs` sets a shorter wait. */
  async queryState(sessionId: string, options: { waitMs?: number } = {}): Promise<SessionState> {
    const query = () => this.handle(sessionId).query(stateQuery);
    try {
      return await (options.waitMs === undefined ? query() : this.client.withDeadline(Date.now() + options.waitMs, query));
    } catch (error) {
      if (isDeadlineExceeded(error)) throw new NoWorkerAnsweredError(sessionId, { cause: error });
      throw error;
    }
  }

  /** Signal `message`; text over the size limit is refused (SessionInputError naming `message.text`). */
  async send(sessionId: string, text: string, options: { now?: boolean } = {}): Promise<void> {
    const problem = userTextProblem(text, this.maxUserTextBytes());
    if (problem !== undefined) throw new SessionInputError(`invalid session input: message.text: ${problem}`);
    await this.handle(sessionId).signal(messageSignal, { text, ...(options.now ? { now: true } : {}) });
  }

  /** Cuts off the step in flight (update `interrupt`); refused when no model call or tool call runs. */
  interrupt(sessionId: string, request: InterruptRequest): Promise<InterruptResult> {
    return this.handle(sessionId).executeUpdate(interruptUpdate, { args: [request] });
  }

  /** Lets a session paused by a budget guard go on with the raised limits (update `approve`). */
  approve(sessionId: string, request: ApproveRequest = {}): Promise<ApproveResult> {
    return this.handle(sessionId).executeUpdate(approveUpdate, { args: [request] });
  }

  result(sessionId: string): Promise<SessionResult> {
    return this.handle(sessionId).result() as Promise<SessionResult>;
  }
}

/** The server's "search attribute … is not defined" (INVALID_ARGUMENT), anywhere in the error's causes. */
function mentionsSearchAttributes(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (/search attribute/i.test(current.message)) return true;
  }
  return false;
}

export interface StartOptions {
  /** The id to start under; default `agent-<random>`. Rules: `session/sessionId.ts` (docs/guide/run-a-session.md, Session ids). */
  sessionId?: string;
  /** Take over the id of a closed session (never a running one); without it a used id is refused. */
  replaceClosed?: boolean;
}

/** The id asked for belongs to another session: bad input (exit 2), nothing was started. */
export class SessionIdTakenError extends SessionInputError {
  constructor(
    readonly sessionId: string,
    readonly running: boolean,
    options: { cause: unknown },
  ) {
    super(
      running
        ? `session id ${sessionId} is in use by a running session; choose another --id (a running session is never replaced)`
        : `session id ${sessionId} was already used by a session that has ended; choose another --id, ` +
            'or pass --replace-closed to start a new session under it (the old transcript is kept as <id>@<run>)',
      options,
    );
  }
}

/** A state query that no worker took in time: the session's workers are down, or poll another server or namespace. */
export class NoWorkerAnsweredError extends Error {
  override readonly name = 'NoWorkerAnsweredError';
  constructor(
    readonly sessionId: string,
    options: { cause: unknown },
  ) {
    super(
      `session ${sessionId} did not answer its state query: no worker took it in time ` +
        `(is \`agentd worker\` running for task queue ${TASK_QUEUE} on this server and namespace?)`,
      options,
    );
  }
}

/** gRPC's DEADLINE_EXCEEDED: the server's own query timeout and a client deadline both end this way. */
const GRPC_DEADLINE_EXCEEDED = 4;

/** A closed run's status, for a session whose own state never ended (the run was closed from outside). */
const CLOSED_FROM_OUTSIDE: Partial<Record<WorkflowExecutionStatusName, SessionStatus>> = {
  FAILED: SessionStatus.failed,
  CANCELLED: SessionStatus.cancelled,
  TERMINATED: SessionStatus.terminated,
  TIMED_OUT: SessionStatus.timedOut,
};

function isDeadlineExceeded(error: unknown): boolean {
  if (!(error instanceof ServiceError)) return false;
  const cause: unknown = error.cause;
  return typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === GRPC_DEADLINE_EXCEEDED;
}
