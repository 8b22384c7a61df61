/**
 * Cost you can see, on a real dev server against the simulator over HTTP: each compaction's notice
 * carries what its summary call cost as the endpoint reported it, and the state's cache-hit ratios
 * are the ledger's cached over prompt tokens.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SIMULATOR_PRICE } from '../../src/model/prices';
import type { CallSpendReport } from '../../src/policy/spend';
import { compactNowUpdate } from '../../src/session/definitions';
import type { CompactNowResult, SessionState } from '../../src/session/state';
import type { SimulatorStats } from '../../src/simulator/stats';
import type { AppliedCompaction } from '../../src/policy/compactionEvent';
import { CompactionRecord } from '../../src/workflows/compactionRecord';
import type { CompactionCarry } from '../../src/workflows/sessionCarry';
import { agentdOn, eventually } from '../../harness/stack';
import { suiteStack } from '../helpers/suiteStack';

const WINDOW = 32_768;
/** Outputs big enough that a 16-step job has a region worth summarizing at 32K. */
const TASK = 'short job then wait [sim steps=16 output=4000-9000]';

/** The simulator's nominal price applied by hand, not through the ledger's own arithmetic. */
function simulatorCost(promptTokens: number, cachedTokens: number, completionTokens: number): number {
  const { inputPerMillion, cachedInputPerMillion = inputPerMillion, outputPerMillion } = SIMULATOR_PRICE;
  return ((promptTokens - cachedTokens) * inputPerMillion + cachedTokens * cachedInputPerMillion + completionTokens * outputPerMillion) / 1_000_000;
}

/** What the simulator answered between two snapshots of its counters. */
function answeredBetween(before: SimulatorStats, after: SimulatorStats) {
  return {
    requests: after.requests - before.requests,
    summaryRequests: after.summaryRequests - before.summaryRequests,
    promptTokens: after.summaryPromptTokens - before.summaryPromptTokens,
    completionTokens: after.summaryCompletionTokens - before.summaryCompletionTokens,
    cachedTokens: after.totalCachedTokens - before.totalCachedTokens,
  };
}

function assertNear(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);
}

describe('spend you can see', () => {
  const stack = suiteStack();

  async function waitingSession(): Promise<string> {
    const handle = await stack.sessions.start({ task: TASK, model: 'agentd-sim', contextWindow: WINDOW, awaitMessagesSeconds: 300 });
    await eventually(async () => ((await stack.sessions.state(handle.workflowId)).status === 'waiting_for_message' ? true : undefined), 'waiting_for_message', 60_000);
    return handle.workflowId;
  }

  it("a summary's notice carries its tokens and cost as the simulator reported them; cache-hit ratios are cached over prompt", async () => {
    await stack.withWorker({ contextWindow: WINDOW }, async (simulator) => {
      const sessionId = await waitingSession();
      const before = simulator.stats();
      const answer: CompactNowResult = await stack.sessions.handle(sessionId).executeUpdate(compactNowUpdate);
      const answered = answeredBetween(before, simulator.stats());
      const notice = answer.notice;
      assert.ok(notice, JSON.stringify(answer));
      assert.equal(notice.strategy, 'summary', JSON.stringify(notice));
      assert.equal(answered.requests, answered.summaryRequests, 'only the summary was asked meanwhile');
      const spend = notice.spend!;
      assert.deepEqual(
        [spend.calls, spend.promptTokens, spend.completionTokens, spend.cachedTokens],
        [answered.summaryRequests, answered.promptTokens, answered.completionTokens, answered.cachedTokens],
      );
      assert.ok(spend.cachedTokens > 0, 'the summary request shares its prefix with the last agent request');
      assert.equal(spend.uncachedTokens, spend.promptTokens - spend.cachedTokens);
      assertNear(spend.cacheHitRatio, spend.cachedTokens / spend.promptTokens, 'the notice\'s cached share');
      assertNear(spend.costUsd, simulatorCost(spend.promptTokens, spend.cachedTokens, spend.completionTokens), 'the notice\'s cost');

      const state: SessionState = await stack.sessions.state(sessionId);
      const stats = simulator.stats();
      const { agent, summary } = state.spend;
      assert.equal(agent.cachedTokens + summary.cachedTokens, stats.totalCachedTokens);
      assert.equal(agent.promptTokens + summary.promptTokens, stats.totalPromptTokens);
      for (const role of [agent, summary]) {
        assert.equal(role.uncachedTokens, role.promptTokens - role.cachedTokens);
        assertNear(role.cacheHitRatio, role.cachedTokens / role.promptTokens, 'a role\'s ratio');
      }
      assertNear(state.spend.cacheHitRatio!, stats.totalCachedTokens / stats.totalPromptTokens, 'the session\'s ratio');
      // Every notice says what it cost: the summaries' add up to the ledger's, prunes and truncations cost nothing.
      const notices = state.compaction.notices;
      assert.equal(notices.length, state.compaction.noticesTotal, 'all notices kept, so they can be added up');
      assert.deepEqual(notices.at(-1)?.spend, spend);
      const sum = (field: keyof CallSpendReport) => notices.reduce((total, each) => total + Number(each.spend?.[field] ?? 0), 0);
      assert.deepEqual([sum('calls'), sum('promptTokens'), sum('cachedTokens'), sum('completionTokens')], [summary.calls, summary.promptTokens, summary.cachedTokens, summary.completionTokens]);
      assertNear(sum('costUsd'), summary.costUsd, 'the notices\' costs');
      for (const other of notices.filter((each) => each.strategy !== 'summary')) assert.deepEqual([other.spend?.calls, other.spend?.costUsd], [0, 0], other.strategy);

      // What status and watch print: the cache-hit ratio and what compaction cost, per notice too.
      const agentd = agentdOn(stack);
      const status = await agentd('status', sessionId);
      assert.equal(status.code, 0, status.stderr);
      const ratio = `${Math.round(state.spend.cacheHitRatio! * 100)}% cache hits`;
      assert.ok(status.stdout.includes(ratio), `${ratio} in\n${status.stdout}`);
      const cost = spend.costUsd.toFixed(4).replace('.', '\\.');
      assert.match(status.stdout, new RegExp(`context compacted: .*\\(summary, step \\d+, manual\\); summary cost 1 call\\(s\\) .* cached\\) .*, \\$${cost}`));
      await stack.sessions.handle(sessionId).cancel();
    });
  });

  it('a model call retried with nothing stored is counted as possibly billed, and the spend line says so', async () => {
    // The first request fails at the endpoint; its retry is answered. Either might have been billed.
    await stack.withWorker({ faultPlan: (index) => (index === 0 ? { kind: 'status', status: 500 } : undefined) }, async (simulator) => {
      const handle = await stack.sessions.start({ task: 'job after an outage [sim steps=2]', model: 'agentd-sim' });
      const result = await stack.sessions.result(handle.workflowId);
      const spend = result.finalState!.spend;
      const stats = simulator.stats();
      assert.equal(stats.rejected.injected, 1);
      assert.equal(spend.agent.calls, stats.requests - 1, 'answered calls only');
      assert.equal(spend.agent.promptTokens, stats.totalPromptTokens);
      assert.equal(spend.agent.possiblyBilledCalls, 1);
      const status = await agentdOn(stack)('status', handle.workflowId);
      assert.match(status.stdout, /; 1 request\(s\) possibly billed, tokens unknown;/);
    });
  });

  it('a rejected summary is billed, and its failed notice carries what it cost', async () => {
    await stack.withWorker({ contextWindow: WINDOW, summarizer: 'refusal' }, async (simulator) => {
      const sessionId = await waitingSession();
      const before = simulator.stats();
      const answer: CompactNowResult = await stack.sessions.handle(sessionId).executeUpdate(compactNowUpdate);
      const answered = answeredBetween(before, simulator.stats());
      assert.equal(answer.compacted, false, JSON.stringify(answer));
      const spend = answer.notice?.failed ? answer.notice.spend : undefined;
      assert.ok(spend, JSON.stringify(answer));
      assert.equal(answered.summaryRequests, 1);
      assert.deepEqual([spend.calls, spend.promptTokens, spend.completionTokens, spend.cachedTokens], [1, answered.promptTokens, answered.completionTokens, answered.cachedTokens]);
      assertNear(spend.costUsd, simulatorCost(spend.promptTokens, spend.cachedTokens, spend.completionTokens), 'the failed notice\'s cost');
      assert.ok(spend.costUsd > 0);
      await stack.sessions.handle(sessionId).cancel();
    });
  });
});

describe("a compaction's notice and what it was billed", () => {
  const carry = (): CompactionCarry => ({
    breaker: { consecutiveFailures: 0, open: false }, calibration: 1, toolSchemaTokens: 0,
    byStrategy: { prune: 0, summary: 0, truncate: 0 }, noticesTotal: 0, notices: [],
  });
  const applied = (strategy: 'prune' | 'summary' | 'truncate'): AppliedCompaction => ({
    ledger: [],
    event: { requestedBy: 'auto', strategy, tokensBefore: 20_000, tokensAfter: 9_000, coveredSeqs: [], truncatedSeqs: [], replaced: [] },
  });
  const at = { turn: 1, step: 7 };
  const billed = { calls: 1, promptTokens: 10_000, completionTokens: 300, cachedTokens: 7_500, costUsd: 0.01 };

  it('a summary carries its calls, once; a prune or a truncation after it carries zeros', () => {
    const carried = carry();
    const record = new CompactionRecord(carried);
    record.bill(billed);
    const summary = record.done(applied('summary'), at);
    assert.deepEqual(summary.spend, { ...billed, uncachedTokens: 2_500, cacheHitRatio: 0.75 });
    assert.deepEqual(carried.notices[0]?.spend, billed, 'the carry keeps the counts; the shares are worked out when shown');
    assert.deepEqual(record.report().notices[0], summary);
    for (const strategy of ['prune', 'truncate'] as const) {
      assert.deepEqual(record.done(applied(strategy), at).spend, { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0, uncachedTokens: 0, cacheHitRatio: 0 });
    }
  });

  it('a failed compaction carries what its rejected summary and a possibly billed retry cost', () => {
    const record = new CompactionRecord(carry());
    record.bill(billed);
    record.bill({ calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0, possiblyBilledCalls: 1 });
    const failed = record.failed({ reason: 'auto', strategy: 'summary', tokensBefore: 20_000, tokensAfter: 20_000, coveredSeqs: [], truncatedSeqs: [], failed: 'refused' }, at);
    assert.deepEqual(failed.spend, { ...billed, possiblyBilledCalls: 1, uncachedTokens: 2_500, cacheHitRatio: 0.75 });
  });
});
