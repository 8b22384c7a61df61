/**
 * The `agentSession` workflow's slow and rare paths, in seconds: the real workflow bundle on the
 * time-skipping test server (the Java one, fetched from Maven Central: test/helpers/timeSkipping.ts)
 * with stub activities over a fake ledger (test/helpers/stubActivities.ts). Overflows, failing
 * summaries, the breaker's cool-down, approval timeouts of an hour and waits of a day run with no
 * model, no store and no real waiting; each test checks the workflow's result and state and what
 * it asked the stubs for.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkflowFailedError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type InjectedSinks, type WorkflowBundle } from '@temporalio/worker';
import { approveUpdate, compactNowUpdate, messageSignal, stateQuery, WORKFLOW_TYPE } from '../../src/session/definitions';
import type { SessionInputDraft } from '../../src/session/input';
import type { CompactionNotice, SessionResult, SessionState } from '../../src/session/state';
import type { AgentdSinks, StepSpanData } from '../../src/telemetry/stepTrace';
import { StubActivities, type StubScript } from '../helpers/stubActivities';
import { startTimeSkipping } from '../helpers/timeSkipping';

/** The workflow as a client sees it: the input in, the result out. */
type AgentSessionWorkflow = (input: SessionInputDraft) => Promise<SessionResult>;
type Session = WorkflowHandle<AgentSessionWorkflow>;

const WINDOW = 32_768;
/** contextWindow − reserveTokens (16384 by default). */
const TRIGGER = 16_384;

describe('agentSession paths on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundle;
  let sessions = 0;

  before(async () => {
    // Errors only, from core too: it warns at every worker start that this server does not advertise
    // a capability (heartbeat details on failure) that these tests do not use.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
    env = await startTimeSkipping();
    bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../../src/workflows'), logger: new DefaultLogger('ERROR') });
  });
  after(async () => {
    await env?.teardown();
  });

  /**
   * Starts a session on a fresh worker whose activities are `stub`'s, and runs `drive` while the
   * worker polls. The stub's tool calls come back to the same queue.
   */
  async function withSession<T>(
    script: StubScript,
    input: Partial<SessionInputDraft>,
    drive: (session: Session, stub: StubActivities, steps: readonly StepSpanData[]) => Promise<T>,
  ): Promise<T> {
    const taskQueue = `paths-${++sessions}`;
    const stub = new StubActivities(script, taskQueue);
    // What each step reports to the worker's telemetry: the spans and metrics are written from it.
    const steps: StepSpanData[] = [];
    const sinks: InjectedSinks<AgentdSinks> = { agentdTelemetry: { stepEnded: { fn: (_info, step) => void steps.push(step) } } };
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: stub.activities(), sinks });
    return worker.runUntil(async () => {
      const session = await env.client.workflow.start<AgentSessionWorkflow>(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `paths-${sessions}-${Date.now()}`,
        args: [{ task: 'work through the backlog', model: 'stub-model', contextWindow: WINDOW, ...input }],
      });
      const outcome = await drive(session, stub, steps);
      assert.deepEqual(stub.unknownSeqs, [], 'every seq the workflow sent was stored first');
      return outcome;
    });
  }

  it('one overflow: a reactive summary, and the retried call goes through', async () => {
    const started = Date.now();
    await withSession(
      { model: (step, calls) => (step < 10 ? { kind: 'tool' } : calls.length === 1 ? { kind: 'overflow' } : { kind: 'answer', text: 'done' }) },
      {},
      async (session, stub) => {
        const result = await session.result();
        const state = result.finalState!;
        const atTen = stub.modelCalls.filter((call) => call.step === 10);
        console.log(
          `overflow once: ${result.steps} steps, ${stub.agentCalls} model calls, step 10 sent ${atTen.map((call) => call.promptTokens).join(' then ')} tokens, ` +
            `${stub.summaryCalls.length} summary, ${Date.now() - started} ms`,
        );
        assert.equal(result.outcome, 'finished');
        assert.equal(result.answer, 'done');
        assert.equal(result.steps, 10);
        assert.equal(atTen.length, 2, 'the refused call was sent once more');
        assert.equal(atTen[0]!.seq, atTen[1]!.seq, 'the retry answers under the same seq');
        assert.ok(atTen[1]!.promptTokens < atTen[0]!.promptTokens / 2, 'the retry is sent compacted');
        assert.equal(stub.summaryCalls.length, 1);
        const [notice] = state.compaction.notices;
        assert.equal(state.compaction.notices.length, 1);
        assert.equal(notice!.reason, 'reactive');
        assert.equal(notice!.strategy, 'summary');
        assert.equal(notice!.step, 10);
        assert.ok(notice!.coveredSeqs.length > 0);
        assert.equal(result.usage.modelCalls, 10, 'a refused call is not a step');
      },
    );
  });

  it('repeated overflows: a reactive summary, then nothing left to drop: the session fails at once with ContextOverflow', async () => {
    const started = Date.now();
    await withSession({ model: (step) => (step < 10 ? { kind: 'tool' } : { kind: 'overflow' }) }, {}, async (session, stub) => {
      const failure = await session.result().then(
        () => assert.fail('the session should fail'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof WorkflowFailedError, String(failure));
      assert.ok(failure.cause instanceof ApplicationFailure);
      assert.equal(failure.cause.type, 'ContextOverflow');
      assert.equal(failure.cause.nonRetryable, true);
      assert.match(failure.cause.message, /rejected the context as too long at step 10 and nothing is left to compact or drop/);

      const state = await session.query(stateQuery);
      const prompts = stub.modelCalls.filter((call) => call.step === 10).map((call) => call.promptTokens);
      console.log(
        `overflow twice: step 10 sent ${prompts.join(', ')} tokens; notices ${state.compaction.notices.map((n) => `${n.strategy}/${n.reason}`).join(', ')}; ` +
          `state ${state.status}, ${Date.now() - started} ms`,
      );
      // The reactive summary left only what a truncation never drops (pinned, summary, memory, the
      // newest step): the refused request is not sent a third time unchanged.
      assert.equal(prompts.length, 2);
      assert.ok(prompts[1]! < prompts[0]!, 'the retry is smaller than the refused request');
      assert.deepEqual(
        state.compaction.notices.map((notice) => [notice.strategy, notice.reason, notice.step, notice.failed !== undefined]),
        [
          ['summary', 'reactive', 10, false],
          ['truncate', 'reactive', 10, true],
        ],
      );
      assert.match(state.compaction.notices[1]!.failed ?? '', /nothing is left to compact or drop/);
      assert.equal(stub.summaryCalls.length, 1, 'the second overflow does not ask the summarizer again');
      assert.equal(stub.memoryStores.length, 0, 'nothing was dropped, so no fresh session memory');
      assert.equal(state.status, 'failed');
      assert.equal(state.step, 10);
      assert.match(state.warnings.at(-1) ?? '', /nothing is left to compact or drop/);
    });
  });

  it('overflows twice, then the truncation lets the retry through: each compaction of the step has its span', async () => {
    await withSession(
      {
        model: (step, calls) => (step < 10 ? { kind: 'tool' } : calls.length <= 2 ? { kind: 'overflow' } : { kind: 'answer', text: 'done' }),
        toolResultTokens: 3000,
      },
      {},
      async (session, stub, steps) => {
        const result = await session.result();
        const notices = result.finalState!.compaction.notices.filter((notice) => notice.step === 10);
        const prompts = stub.modelCalls.filter((call) => call.step === 10).map((call) => call.promptTokens);
        console.log(`overflow twice, then through: step 10 sent ${prompts.join(' then ')} tokens; notices ${notices.map(brief).join(', ')}; spans ${JSON.stringify(spannedCompactions(steps, 10))}`);
        assert.equal(result.outcome, 'finished');
        assert.equal(prompts.length, 3, 'refused twice, then answered');
        assert.ok(prompts[2]! < prompts[1]! && prompts[1]! < prompts[0]!, 'each retry is smaller');
        const expected: [string, string, boolean][] = [
          ['prune', 'reactive', false],
          ['truncate', 'reactive', false],
        ];
        assert.deepEqual(notices.map((notice) => [notice.strategy, notice.reason, notice.failed !== undefined]), expected);
        assert.deepEqual(spannedCompactions(steps, 10), expected, 'the truncation after the second overflow has its span too');
      },
    );
  });

  // The server has just said our estimate is low, so a truncation at our own trigger would drop
  // nothing there and the retry would be the very request it refused.
  it('a failed reactive summary: the steps dropped instead make the retry smaller than the refused request', async () => {
    await withSession(
      {
        model: (step, calls) => (step < 10 ? { kind: 'tool' } : calls.length === 1 ? { kind: 'overflow' } : { kind: 'answer', text: 'done' }),
        summary: () => ({ kind: 'reject', reason: 'refusal' }),
      },
      {},
      async (session, stub, steps) => {
        const result = await session.result();
        const prompts = stub.modelCalls.filter((call) => call.step === 10).map((call) => call.promptTokens);
        const notices = result.finalState!.compaction.notices.filter((notice) => notice.step === 10);
        assert.deepEqual(spannedCompactions(steps, 10), [['summary', 'reactive', true], ['truncate', 'reactive', false]], 'a span for the failed summary and one for the truncation');
        console.log(`failed reactive summary: step 10 sent ${prompts.join(' then ')} tokens; notices ${notices.map((n) => `${n.strategy}/${n.reason}${n.failed ? ' (failed)' : ''}`).join(', ')}`);
        assert.equal(result.outcome, 'finished');
        assert.equal(prompts.length, 2, 'one refused request, one retry');
        assert.ok(prompts[1]! < prompts[0]!, `the retry sent ${prompts[1]} tokens again`);
        assert.deepEqual(
          notices.map((notice) => [notice.strategy, notice.reason, notice.failed !== undefined]),
          [
            ['summary', 'reactive', true],
            ['truncate', 'reactive', false],
          ],
        );
      },
    );
  });

  it('a rejected summary: the workflow truncates instead, and no request reaches the trigger', async () => {
    const started = Date.now();
    await withSession(
      {
        model: (step) => (step < 16 ? { kind: 'tool' } : { kind: 'answer', text: 'done' }),
        summary: () => ({ kind: 'reject', reason: 'refusal' }),
      },
      {},
      async (session, stub) => {
        const result = await session.result();
        const state = result.finalState!;
        const failed = state.compaction.notices.filter((notice) => notice.failed !== undefined);
        const truncations = state.compaction.notices.filter((notice) => notice.strategy === 'truncate');
        console.log(
          `rejected summaries: ${result.steps} steps, ${failed.length} failed summaries, ${truncations.length} truncations, ` +
            `max request ${stub.maxPromptTokens} tokens (trigger ${TRIGGER}), ${Date.now() - started} ms`,
        );
        assert.equal(result.outcome, 'finished');
        assert.ok(failed.length >= 1);
        for (const notice of failed) {
          assert.equal(notice.strategy, 'summary');
          assert.match(notice.failed!, /^summarize failed: stub summarizer: the answer was rejected \(refusal\)/);
          // The truncation after it, at the same step, took the context under the trigger.
          const truncation = truncations.find((candidate) => candidate.step === notice.step);
          assert.ok(truncation, `a truncation at step ${notice.step}`);
          assert.equal(truncation.reason, 'auto');
          assert.ok(truncation.tokensAfter < TRIGGER * 0.75, `truncated to ${truncation.tokensAfter}, under the target`);
        }
        assert.ok(stub.maxPromptTokens < TRIGGER, `largest request ${stub.maxPromptTokens}`);
        assert.equal(state.compaction.byStrategy.summary, 0);
        assert.equal(stub.memoryStores.length, truncations.length, 'each truncation stored a session memory');
        // Rejected answers were billed all the same (their details carry what they cost).
        assert.equal(state.spend.summary.calls, stub.summaryCalls.length);
        assert.ok(state.spend.summary.promptTokens > 0);
        // A rejection is final: one attempt per compaction.
        assert.ok(stub.summaryCalls.every((call) => call.attempt === 1));
      },
    );
  });

  it('the breaker: three failed summaries open it, the half-open retry after the cool-down succeeds and closes it (across continue-as-new)', async () => {
    const started = Date.now();
    const coolDown = 6;
    const failures = ['refusal', 'unavailable', 'not_shorter'] as const;
    let openState: SessionState | undefined;
    await withSession(
      {
        // Ends the turn at the first step after the half-open retry was answered.
        model: (_step, _calls, stub) => (stub.summaryCalls.some((call) => call.compaction > failures.length) ? { kind: 'answer', text: 'done' } : { kind: 'tool' }),
        summary: (compaction) => {
          const failure = failures[compaction - 1];
          if (failure === undefined) return { kind: 'ok' };
          return failure === 'unavailable' ? { kind: 'unavailable' } : { kind: 'reject', reason: failure };
        },
        // The first model call after the third failed compaction waits while the test reads the state.
        holdAt: (_step, stub) => stub.compactions === failures.length,
        // Heavier steps reach the trigger sooner: fewer steps between compactions.
        toolResultTokens: 3000,
      },
      // A run's history this small continues as new every few steps: the breaker must survive the carry.
      { maxSteps: 400, compaction: { breakerCoolDownSteps: coolDown }, continueAsNew: { maxHistoryEvents: 100 } },
      async (session, stub) => {
        // Awaiting the result lets the server skip time (the unavailable summarizer's retry backoff) meanwhile.
        const ended = session.result();
        await stub.held();
        openState = await session.query(stateQuery);
        stub.release();
        const result = await ended;
        const state = result.finalState!;
        const notices = state.compaction.notices;
        const retry = notices.find((notice) => notice.halfOpenRetry === true);
        const breaker = openState.compaction.breaker;
        console.log(
          `breaker: opened at step ${breaker.openedAtStep}, retry due at ${breaker.retryAtStep}, retried at ${retry?.step} (${retry?.strategy}, ${retry?.breaker}); ` +
            `${result.steps} steps in ${state.runs} runs, ${stub.summaryCalls.length} summary attempts for ${stub.compactions} compactions, ` +
            `max request ${stub.maxPromptTokens}, ${Date.now() - started} ms`,
        );
        assert.equal(result.outcome, 'finished');
        assert.ok(state.runs >= 2, `continued as new (${state.runs} runs)`);

        // Open, with the operator's warning naming the three failures.
        assert.equal(breaker.open, true);
        assert.equal(breaker.consecutiveFailures, 3);
        assert.equal(breaker.retryAtStep, breaker.openedAtStep! + coolDown);
        assert.equal(
          openState.compaction.warning,
          `breaker OPEN since step ${breaker.openedAtStep}: 3 compactions failed (refusal, summarizer unavailable, not_shorter); ` +
            `running on pruning and truncation; next retry at step ${breaker.retryAtStep}`,
        );
        const opened = notices.find((notice) => notice.breaker === 'opened');
        assert.ok(opened && opened.step === breaker.openedAtStep && opened.failed !== undefined, JSON.stringify(notices.map(brief)));
        // The unavailable summarizer was retried by the activity's retry policy (3 attempts), its backoff skipped.
        assert.deepEqual(
          stub.summaryCalls.filter((call) => call.compaction === 2).map((call) => call.attempt),
          [1, 2, 3],
        );

        // The half-open retry: the first summary after the three failures, at or after the retry step; it closed the breaker.
        assert.ok(retry, `a half-open retry among ${JSON.stringify(notices.map(brief))}`);
        assert.equal(stub.compactions, failures.length + 1);
        assert.ok(retry.step >= breaker.retryAtStep!);
        assert.equal(retry.strategy, 'summary');
        assert.equal(retry.failed, undefined);
        assert.equal(retry.breaker, 'closed');
        // Meanwhile no summary was tried: model-free pruning and truncation kept the context under the trigger.
        const between = notices.filter((notice) => notice.step > breaker.openedAtStep! && notice.step < retry.step);
        assert.ok(between.length > 0 && between.every((notice) => notice.strategy !== 'summary'), JSON.stringify(notices.map(brief)));
        assert.ok(stub.maxPromptTokens < TRIGGER, `largest request ${stub.maxPromptTokens}`);

        assert.equal(state.compaction.breaker.open, false);
        assert.equal(state.compaction.breaker.consecutiveFailures, 0);
        assert.equal(state.compaction.warning, undefined);
      },
    );
  });

  it('an approval that never comes: paused at maxSteps, the session ends with step_limit when the hour is up', async () => {
    const started = Date.now();
    await withSession({ model: () => ({ kind: 'tool' }) }, { maxSteps: 3, approvalTimeoutSeconds: 3600 }, async (session, stub) => {
      const paused = await waitForStatus(session, 'waiting_for_approval');
      const result = await session.result();
      const pausedFor = (await closedAt(session)) - Date.parse(paused.paused!.since);
      console.log(
        `approval timeout: paused after ${paused.step} steps (${paused.paused?.reason}); ended ${result.outcome} ${Math.round(pausedFor / 1000)} s ` +
          `of server time later, in ${Date.now() - started} ms`,
      );
      assert.equal(paused.paused?.guard, 'max_steps');
      assert.equal(Date.parse(paused.paused!.until) - Date.parse(paused.paused!.since), 3600_000);
      assert.ok(pausedFor >= 3600_000 && pausedFor < 3660_000, `ended ${pausedFor} ms after the pause`);
      assert.equal(result.outcome, 'step_limit');
      assert.equal(result.steps, 3);
      assert.equal(result.answer, 'stopped after 3 steps (maxSteps 3)');
      assert.equal(stub.agentCalls, 3, 'no model call while paused');
      assert.equal(result.finalState?.status, 'completed');
      assert.equal(result.finalState?.paused, undefined);
    });
  });

  it('an approval with raised limits: refused while it would still be exhausted, then the session goes on', async () => {
    const started = Date.now();
    await withSession(
      { model: (step) => (step < 5 ? { kind: 'tool' } : { kind: 'answer', text: 'done after approval' }) },
      { maxSteps: 3, approvalTimeoutSeconds: 3600 },
      async (session, stub) => {
        await waitForStatus(session, 'waiting_for_approval');
        const refused = await session.executeUpdate(approveUpdate, { args: [{ maxSteps: 3 }] }).then(
          () => assert.fail('an approval that leaves maxSteps reached is refused'),
          (error: unknown) => error,
        );
        assert.ok(refused instanceof WorkflowUpdateFailedError, String(refused));
        assert.ok(refused.cause instanceof ApplicationFailure);
        assert.equal(refused.cause.type, 'UpdateRefused');
        assert.match(refused.cause.message, /maxSteps: still exhausted/);

        const approved = await session.executeUpdate(approveUpdate, { args: [{ maxSteps: 10 }] });
        const result = await session.result();
        console.log(
          `approval: refused maxSteps 3, approved maxSteps ${approved.budget.maxSteps}; ${result.outcome} after ${result.steps} steps, ` +
            `${stub.agentCalls} model calls, ${Date.now() - started} ms`,
        );
        assert.equal(approved.budget.maxSteps, 10);
        assert.equal(approved.budget.approvals, 1);
        assert.equal(result.outcome, 'finished');
        assert.equal(result.answer, 'done after approval');
        assert.equal(result.steps, 5);
        assert.equal(stub.agentCalls, 5);
        assert.equal(result.finalState?.budget.approvals, 1);
      },
    );
  });

  it('compactNow while paused for approval: served at once, with no agent model call', async () => {
    const started = Date.now();
    await withSession({ model: () => ({ kind: 'tool' }) }, { maxSteps: 8, approvalTimeoutSeconds: 3600 }, async (session, stub) => {
      const before = await waitForStatus(session, 'waiting_for_approval');
      const calls = stub.agentCalls;
      const compacted = await session.executeUpdate(compactNowUpdate);
      const after = await session.query(stateQuery);
      console.log(
        `compactNow while paused: ${compacted.notice?.strategy} ${compacted.notice?.tokensBefore} -> ${compacted.notice?.tokensAfter} tokens at step ${before.step}, ` +
          `model calls ${calls} -> ${stub.agentCalls}, ${Date.now() - started} ms`,
      );
      assertManualSummary(compacted.compacted, compacted.notice, before.step);
      assert.equal(stub.agentCalls, calls, 'no agent model call');
      assert.equal(stub.summaryCalls.length, 1);
      assert.equal(after.status, 'waiting_for_approval', 'still paused');
      assert.ok(after.context.tokens < before.context.tokens);
      assert.equal(after.compaction.lastManual?.step, before.step);
      const result = await session.result();
      assert.equal(result.outcome, 'step_limit');
      assert.equal(stub.agentCalls, calls);
    });
  });

  it('compactNow while waiting a day for a message: served at once; a message then opens the next turn', async () => {
    const started = Date.now();
    await withSession(
      { model: (step) => (step < 8 ? { kind: 'tool' } : { kind: 'answer', text: step === 8 ? 'first answer' : 'second answer' }) },
      { awaitMessagesSeconds: 86_400, maxTurns: 3 },
      async (session, stub) => {
        const waiting = await waitForStatus(session, 'waiting_for_message');
        const calls = stub.agentCalls;
        const compacted = await session.executeUpdate(compactNowUpdate);
        const after = await session.query(stateQuery);
        assertManualSummary(compacted.compacted, compacted.notice, waiting.step);
        assert.equal(stub.agentCalls, calls, 'no agent model call');
        assert.equal(after.status, 'waiting_for_message');

        await session.signal(messageSignal, { text: 'one more thing' });
        const serverBefore = await env.currentTimeMs();
        const result = await session.result();
        const waited = (await closedAt(session)) - serverBefore;
        console.log(
          `compactNow while waiting: ${compacted.notice?.strategy} at step ${waiting.step}, model calls ${calls} then ${stub.agentCalls}; ` +
            `${result.turns} turns, ${result.outcome} ${(waited / 3600_000).toFixed(2)} h of server time later, in ${Date.now() - started} ms`,
        );
        assert.equal(waiting.step, 8);
        assert.equal(result.outcome, 'finished');
        assert.equal(result.turns, 2);
        assert.equal(result.steps, 9);
        assert.equal(result.answer, 'second answer');
        assert.equal(stub.agentCalls, 9);
        assert.equal(stub.summaryCalls.length, 1, 'the second turn needed no compaction');
        // The second turn's answer came at once; then the session waited its day for a message.
        assert.ok(waited >= 86_400_000 && waited < 86_460_000, `ended ${waited} ms after the signal`);
      },
    );
  });
});

function assertManualSummary(compacted: boolean, notice: CompactionNotice | undefined, step: number): void {
  assert.equal(compacted, true);
  assert.ok(notice);
  assert.equal(notice.reason, 'manual');
  assert.equal(notice.strategy, 'summary');
  assert.equal(notice.step, step);
  assert.ok(notice.tokensAfter < notice.tokensBefore);
}

/** Polls the state query until the session has `status` (time does not skip while nobody awaits a result). */
async function waitForStatus(session: Session, status: SessionState['status'], timeoutMs = 10_000): Promise<SessionState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await session.query(stateQuery).catch(() => undefined);
    if (state?.status === status) return state;
    if (Date.now() > deadline) throw new Error(`session ${session.workflowId} is ${state?.status ?? 'unknown'}, not ${status}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * When the session closed, in server time. (Once a result is awaited the server skips to its next
 * timer, which after the session's own can be years off: `currentTimeMs` then says little.)
 */
async function closedAt(session: Session): Promise<number> {
  const closeTime = (await session.describe()).closeTime;
  assert.ok(closeTime, 'the session is closed');
  return closeTime.getTime();
}

function brief(notice: CompactionNotice): string {
  return `${notice.step}:${notice.strategy}/${notice.reason}${notice.failed ? '!' : ''}${notice.halfOpenRetry ? '(half-open)' : ''}`;
}

/** The compactions step `step` reported for its spans: strategy, what asked for it, and whether it failed. */
function spannedCompactions(steps: readonly StepSpanData[], step: number): [string, string, boolean][] {
  return (steps.find((report) => report.step === step)?.compactions ?? []).map((compaction) => [compaction.strategy, compaction.requestedBy, compaction.failed !== undefined]);
}
