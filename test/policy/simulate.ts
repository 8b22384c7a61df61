/**
 * A pure stand-in for the workflow loop, for property tests: it appends steps to a ledger the way
 * `agentSession` does, runs `decide` before every model call, plays the activities (views and
 * summaries of given sizes, failures), applies the results, and checks every invariant after every
 * decision. A broken invariant throws with the rule's name and the numbers.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { accounting, type AccountingReport } from '../../src/policy/accounting';
import { CLOSED_BREAKER, isHalfOpen, recordFailure, recordSuccess, type BreakerState } from '../../src/policy/breaker';
import { applyCompaction, applyTruncation, withSessionMemory, type CompactionResults } from '../../src/policy/applyCompaction';
import { decide, decideTruncation } from '../../src/policy/decide';
import type { CachePrices } from '../../src/policy/cacheCost';
import type { CompactDecision, CompactionRequest, DecideInput, Decision, TruncateDecision } from '../../src/policy/decision';
import { calibrate, calibratedTokens, estimateContext, rawContextTokens, type UsageAnchor } from '../../src/policy/estimate';
import type { LedgerEntry } from '../../src/policy/ledger';
import { isOversized, oversizedView } from '../../src/policy/oversize';
import { fromSeqRuns } from '../../src/policy/seqRuns';
import { resolveCompactionSettings, type ResolvedCompactionSettings } from '../../src/policy/settings';
import { stepSpans } from '../../src/policy/steps';
import { verifyCompaction } from '../../src/policy/verifyCompaction';
import { orphanProblem, pinnedProblem } from '../unit/policy/builders';

// ---------------------------------------------------------------------------------------------
// Arbitraries

export interface ToolScript {
  /** Characters of the result: 100 B … 200 KB. */
  readonly chars: number;
  /** Characters per token of this result (code and logs tokenize densely, prose less). */
  readonly charsPerToken: number;
}

export interface StepScript {
  /** Share of the largest assistant message this step's message weighs (0…1). */
  readonly assistantShare: number;
  /** 0–4 tool calls. */
  readonly tools: readonly ToolScript[];
  /** A manual compaction is asked for before this step's model call. */
  readonly manual: boolean;
  /** The model overflowed (reactive compaction) before this step's model call. */
  readonly reactive: boolean;
  /** The compaction activity fails after its retries. */
  readonly compactionFails: boolean;
  /** Summary size as a share of what it may be; above 1 makes summaries that verification rejects. */
  readonly summaryShare: number;
  /**
   * Characters of a large tool-call argument the assistant message carries (a `write_file` body of
   * 12–30K tokens and the like), or 0; such a message always declares at least one call.
   */
  readonly argumentChars: number;
}

export interface TurnScript {
  readonly userTokens: number;
  readonly steps: readonly StepScript[];
}

export interface SessionScript {
  readonly contextWindow: number;
  readonly settings: Record<string, unknown>;
  /** Share of 4% of the window the system prompt and task weigh. */
  readonly systemShare: number;
  readonly taskShare: number;
  readonly toolSchemaTokens: number;
  /** Server count / our count: the tokenizer mismatch calibration must learn. */
  readonly serverRatio: number;
  readonly turns: readonly TurnScript[];
}

const toolArb: fc.Arbitrary<ToolScript> = fc.record({
  chars: fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 100, max: 4_000 }) },
    { weight: 3, arbitrary: fc.integer({ min: 4_000, max: 30_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: 30_000, max: 200_000 }) },
  ),
  charsPerToken: fc.double({ min: 2.5, max: 4.5, noNaN: true }),
});

const stepArb: fc.Arbitrary<StepScript> = fc.record({
  assistantShare: fc.double({ min: 0, max: 1, noNaN: true }),
  tools: fc.array(toolArb, { maxLength: 4 }),
  manual: fc.oneof({ weight: 19, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  reactive: fc.oneof({ weight: 39, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  compactionFails: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  summaryShare: fc.oneof({ weight: 9, arbitrary: fc.double({ min: 0.05, max: 1, noNaN: true }) }, { weight: 1, arbitrary: fc.double({ min: 1, max: 3, noNaN: true }) }),
  argumentChars: fc.oneof(
    { weight: 8, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 6_000, max: 40_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 40_000, max: 120_000 }) },
  ),
});

const turnArb = (maxSteps: number, size: fc.SizeForArbitrary): fc.Arbitrary<TurnScript> =>
  fc.record({ userTokens: fc.integer({ min: 5, max: 400 }), steps: fc.array(stepArb, { minLength: 1, maxLength: maxSteps, size }) });

/** Windows from 8K to 1M: the named sizes of DESIGN and anything between. */
export const windowArb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(8_192, 16_384, 32_768, 65_536, 131_072, 200_000, 1_000_000),
  fc.integer({ min: 8_192, max: 1_000_000 }),
);

/** Settings valid for `window`: defaults where they fit, otherwise a reserve the window allows, plus variations. */
export function settingsArb(window: number): fc.Arbitrary<Record<string, unknown>> {
  const reserve =
    window >= 32_768
      ? fc.oneof(fc.constant(undefined), fc.integer({ min: 1_024, max: Math.min(65_536, Math.floor(window / 2)) }))
      : fc.integer({ min: 1_024, max: Math.floor(window / 2) });
  return fc
    .record({
      reserveTokens: reserve,
      tailTurns: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 4 })),
      tailCapTokens: fc.oneof(fc.constant(undefined), fc.integer({ min: 1_024, max: 32_768 })),
      breakerThreshold: fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 4 })),
      auto: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(false) }),
    })
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));
}

/** Sessions of up to `maxTurns` turns of up to `maxSteps` steps; `size: 'large'` makes long ones common. */
export function sessionArb(options: { maxTurns: number; maxSteps: number; size?: fc.SizeForArbitrary }): fc.Arbitrary<SessionScript> {
  const size = options.size ?? 'small';
  return windowArb.chain((contextWindow) =>
    fc.record({
      contextWindow: fc.constant(contextWindow),
      settings: settingsArb(contextWindow),
      systemShare: fc.double({ min: 0.01, max: 1, noNaN: true }),
      taskShare: fc.double({ min: 0.01, max: 1, noNaN: true }),
      toolSchemaTokens: fc.integer({ min: 0, max: Math.min(3_000, Math.floor(contextWindow / 50)) }),
      serverRatio: fc.double({ min: 0.85, max: 1.25, noNaN: true }),
      turns: fc.array(turnArb(options.maxSteps, size), { minLength: 1, maxLength: options.maxTurns, size }),
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Simulation

/** Counts of what happened, so tests can check the generator reaches the interesting paths. */
export interface SimStats {
  decisions: number;
  compactions: number;
  summaries: number;
  prunes: number;
  tailCuts: number;
  truncations: number;
  failures: number;
  recompactions: number;
  oversized: number;
  /** Assistant messages generated with a large tool-call argument. */
  largeArguments: number;
  /** Tail cuts of an assistant message (a view of its tool-call arguments). */
  argumentCuts: number;
}

export function emptyStats(): SimStats {
  return { decisions: 0, compactions: 0, summaries: 0, prunes: 0, tailCuts: 0, truncations: 0, failures: 0, recompactions: 0, oversized: 0, largeArguments: 0, argumentCuts: 0 };
}

/**
 * Which rules the simulated workflow runs under, as its `patched()` calls would say: none of them
 * (the defaults) replays the oldest histories; the workflow today sets them all. `observe` sees every
 * decision with its input, for properties of a rule the shared checks do not know.
 */
export interface SimulationRules {
  readonly graceful?: boolean;
  readonly landWithRoom?: boolean;
  readonly prices?: CachePrices;
  readonly observe?: (decision: Decision, input: DecideInput) => void;
}

export class Simulation {
  ledger: LedgerEntry[] = [];
  readonly settings: ResolvedCompactionSettings;
  private readonly originals: number[] = [];
  private readonly truncated: number[] = [];
  private breaker: BreakerState = CLOSED_BREAKER;
  private anchor: UsageAnchor | undefined;
  private calibration = 1;
  private nextSeq = 0;
  private turn = 0;
  private step = 0;

  constructor(
    private readonly script: SessionScript,
    readonly stats: SimStats = emptyStats(),
    private readonly rules: SimulationRules = {},
  ) {
    this.settings = resolveCompactionSettings(script.contextWindow, script.settings, { landWithRoom: rules.landWithRoom === true });
  }

  /** Every original seq live, covered by a summary or truncated, exactly once. */
  accounting(): AccountingReport {
    return accounting(this.originals, this.ledger, this.truncated);
  }

  /** Plays the whole script, checking invariants after every decision. */
  run(): this {
    const pinnedBudget = this.script.contextWindow * 0.04;
    this.append({ role: 'system', tokens: Math.max(1, Math.floor(this.script.systemShare * pinnedBudget)), turn: 0, step: 0, pinned: true });
    this.turn = 1;
    this.append({ role: 'user', tokens: Math.max(1, Math.floor(this.script.taskShare * pinnedBudget)), turn: 1, step: 0, pinned: true });
    this.script.turns.forEach((turn, index) => {
      if (index > 0) {
        this.turn += 1;
        this.append({ role: 'user', tokens: turn.userTokens, turn: this.turn, step: 0 });
      }
      for (const step of turn.steps) {
        this.beforeModelCall(step);
        this.modelCall(step);
      }
    });
    return this;
  }

  private input(request: CompactionRequest): DecideInput {
    return {
      ledger: this.ledger,
      settings: this.settings,
      estimateInput: {
        toolSchemaTokens: this.script.toolSchemaTokens,
        calibration: this.calibration,
        ...(this.anchor ? { anchor: this.anchor } : {}),
      },
      breaker: this.breaker,
      request,
      memoryAtTruncation: true,
      ...(this.rules.graceful || this.rules.landWithRoom
        ? {
            step: this.step,
            ...(this.rules.graceful ? { graceful: true } : {}),
            ...(this.rules.landWithRoom ? { landWithRoom: true } : {}),
            ...(this.rules.prices ? { prices: this.rules.prices } : {}),
          }
        : {}),
    };
  }

  /** A failed compaction: with the newer rules the breaker half-opens after its cool-down, as the workflow records it. */
  private recordCompactionFailure(reason: string): void {
    const halfOpens = this.rules.graceful === true || this.rules.landWithRoom === true;
    const failure = halfOpens ? { step: this.step, coolDownSteps: this.settings.breakerCoolDownSteps, reason } : undefined;
    this.breaker = recordFailure(this.breaker, this.settings.breakerThreshold, failure);
  }

  private estimate(): number {
    const { estimateInput } = this.input('auto');
    return estimateContext(this.ledger, estimateInput, this.settings.perMessageOverheadTokens).tokens;
  }

  /** What the workflow does before each model call. */
  private beforeModelCall(step: StepScript): void {
    if (step.reactive) this.handle(this.decideChecked('reactive'), step);
    if (step.manual) this.handle(this.decideChecked('manual'), step);
    let last = this.handle(this.decideChecked('auto'), step);
    // A compaction that failed (summarizer down) cannot help: never send a known-oversize request.
    if (this.estimate() > this.settings.hardLimitTokens) {
      const input = this.input('auto');
      const truncation = decideTruncation(input, 'cannot_compact');
      this.checkDecision(truncation, input);
      last = this.handle(truncation, step);
    }
    const estimate = this.estimate();
    if (estimate > this.settings.hardLimitTokens) {
      const explained =
        (last.kind === 'none' && last.reason === 'nothing_to_drop') || (last.kind === 'truncate' && last.shortfall !== undefined);
      assert.ok(explained, `sending ${estimate} > hard limit ${this.settings.hardLimitTokens} after ${JSON.stringify(last)}`);
    }
  }

  private modelCall(step: StepScript): void {
    this.step += 1;
    const promptRaw = rawContextTokens(this.ledger, this.settings.perMessageOverheadTokens, this.script.toolSchemaTokens);
    const serverPrompt = Math.ceil(promptRaw * this.script.serverRatio);
    const maxAssistant = Math.max(10, Math.min(1_500, Math.floor(this.script.contextWindow * 0.02)));
    const textTokens = Math.max(1, Math.floor(step.assistantShare * maxAssistant));
    // Arguments are code, about 3.5 chars a token; the text around them prose, 4.
    const argumentTokens = Math.ceil(step.argumentChars / 3.5);
    const assistantTokens = textTokens + argumentTokens;
    const assistantSeq = this.nextSeq;
    // A message with a large argument calls a tool with it (a write_file answered by a short result).
    const tools: readonly ToolScript[] = step.argumentChars > 0 && step.tools.length === 0 ? [{ chars: 40, charsPerToken: 4 }] : step.tools;
    const ids = tools.map((_, n) => `call_${assistantSeq}_${n}`);
    if (step.argumentChars > 0) this.stats.largeArguments++;
    this.append({
      role: 'assistant',
      tokens: assistantTokens,
      chars: textTokens * 4 + step.argumentChars,
      turn: this.turn,
      step: this.step,
      ...(ids.length > 0 ? { declares: ids } : {}),
    });
    this.anchor = { promptTokens: serverPrompt, completionTokens: Math.ceil(assistantTokens * this.script.serverRatio), lastSeq: assistantSeq };
    this.calibration = calibrate(this.calibration, serverPrompt, promptRaw);
    tools.forEach((tool, n) => {
      const tokens = Math.max(1, Math.ceil(tool.chars / tool.charsPerToken));
      const result: Omit<LedgerEntry, 'seq'> = { role: 'tool', tokens, chars: tool.chars, turn: this.turn, step: this.step, answers: ids[n]! };
      if (!isOversized(result, this.settings, this.settings.contextWindow)) {
        this.append(result);
        return;
      }
      // Stored whole, but the context only ever gets a head-and-tail view naming the original.
      const originalSeq = this.nextSeq;
      const view = oversizedView({ seq: originalSeq, tokens, chars: tool.chars }, this.settings, this.settings.contextWindow);
      assert.ok(view, `no view for an oversized result of ${tokens} tokens, ${tool.chars} chars`);
      assert.ok(view.expectedTokens <= this.settings.oversizeTokens / 4, 'an oversized view over a quarter of the threshold');
      this.stats.oversized++;
      this.allocate(true);
      this.ledger.push({
        ...result,
        seq: this.allocate(false),
        tokens: view.expectedTokens,
        chars: view.headChars + view.tailChars + 120,
        kind: 'view',
        replaces: originalSeq,
      });
    });
    this.checkLedger('after a step');
  }

  private decideChecked(request: CompactionRequest): Decision {
    const input = this.input(request);
    const before = JSON.stringify(input);
    const decision = decide(input);
    assert.equal(JSON.stringify(input), before, 'decide mutated its input');
    assert.deepEqual(decide(JSON.parse(before) as DecideInput), decision, 'same input, different decision');
    this.checkDecision(decision, input);
    this.rules.observe?.(decision, input);
    return decision;
  }

  /** The rules every decision obeys, whatever happens next. */
  checkDecision(decision: Decision, input: DecideInput): void {
    this.stats.decisions++;
    const s = this.settings;
    const estimate = estimateContext(input.ledger, input.estimateInput, s.perMessageOverheadTokens).tokens;
    const { ledger } = input;
    if (decision.kind === 'none') {
      assert.equal(decision.estimate, estimate);
      if (decision.reason === 'under_trigger') assert.ok(estimate < s.triggerTokens, 'under_trigger at or over the trigger');
      if (['breaker_open', 'auto_off', 'nothing_to_compact', 'within_limit'].includes(decision.reason)) {
        assert.ok(estimate <= s.hardLimitTokens, `none/${decision.reason} over the hard limit (${estimate})`);
      }
      return;
    }
    if (decision.kind === 'truncate') {
      checkTruncation(decision, ledger, s.perMessageOverheadTokens);
      // Graceful rules truncate at the trigger when the breaker is open; the earlier ones only over the hard limit.
      const floor = input.graceful === true ? s.triggerTokens - 1 : s.hardLimitTokens;
      if (input.request === 'auto') assert.ok(estimate > floor, `auto truncation at ${estimate}, not over ${floor}`);
      return;
    }
    checkCompaction(decision, input, estimate);
  }

  /** Plays the activities for `decision` and applies it; returns the decision for the caller's bookkeeping. */
  private handle(decision: Decision, step: StepScript): Decision {
    if (decision.kind === 'none') return decision;
    const before = this.ledger;
    if (decision.kind === 'truncate') {
      let applied = applyTruncation(before, decision);
      assert.ok(applied.event.tokensAfter <= decision.expectedAfter, 'truncation event worse than projected');
      this.truncated.push(...fromSeqRuns(applied.event.truncatedSeqs));
      const memoryBudget = decision.memoryBudgetTokens ?? 0;
      if (memoryBudget > 0) {
        // The memory comes out at most at its budget; here, at the budget. The goal left room for it.
        const memoryTokens = Math.floor(memoryBudget / decision.projection.calibration);
        applied = withSessionMemory(applied, { seq: this.allocate(false), tokens: memoryTokens, chars: memoryTokens * 4 }, decision.projection);
        const framing = Math.ceil(this.settings.perMessageOverheadTokens * decision.projection.calibration);
        assert.ok(applied.event.tokensAfter <= decision.expectedAfter + memoryBudget + framing + 1, 'memory after a truncation over its budget');
      }
      this.adopt(applied.ledger, 'after a truncation');
      this.stats.truncations++;
      return decision;
    }
    this.stats.compactions++;
    if (before.some((entry) => entry.kind === 'summary' || entry.kind === 'view')) this.stats.recompactions++;
    // As the workflow's breaker role: with the graceful rules, model-free pruning while the breaker is
    // open (and not half-open) neither counts nor closes it, and an automatic prune does not close it.
    const graceful = this.rules.graceful === true;
    const auto = decision.requestedBy === 'auto';
    const bypass = graceful && auto && this.breaker.open && !isHalfOpen(this.breaker, this.step);
    const closes = !bypass && (!graceful || decision.strategy === 'summary' || !auto);
    if (step.compactionFails) {
      if (!bypass) this.recordCompactionFailure('model unavailable');
      this.stats.failures++;
      return decision;
    }
    const results = this.results(decision, step.summaryShare);
    const applied = applyCompaction(before, decision, results);
    const verdict = verifyCompaction(decision, applied);
    const honest = !applied.event.summary || applied.event.summary.tokensAfter < applied.event.summary.tokensBefore;
    if (honest && step.summaryShare <= 1) {
      // Results at or under their expected sizes: the projection was honest.
      assert.ok(applied.event.tokensAfter <= decision.expectedAfter, `event ${applied.event.tokensAfter} > expected ${decision.expectedAfter}`);
      assert.ok(verdict.ok || verdict.code === 'not_under_trigger' || verdict.code === 'not_at_target', JSON.stringify(verdict));
      if (decision.shortfall === undefined) assert.deepEqual(verdict, { ok: true });
    }
    if (verdict.ok || verdict.adopt) {
      assert.ok(
        rawContextTokens(applied.ledger, 0, 0) < rawContextTokens(before, 0, 0),
        'an adopted compaction did not shrink the context',
      );
      this.checkApplied(before, applied.ledger, decision);
      this.adopt(applied.ledger, 'after a compaction');
      if (decision.strategy === 'summary') this.stats.summaries++;
      else this.stats.prunes++;
      if (decision.tailCuts.length > 0) this.stats.tailCuts++;
      const assistants = new Set(before.filter((entry) => entry.role === 'assistant').map((entry) => entry.seq));
      if (decision.tailCuts.some((cut) => assistants.has(cut.seq))) this.stats.argumentCuts++;
    }
    if (verdict.ok) {
      if (closes) this.breaker = recordSuccess(this.breaker);
    } else {
      if (!bypass) this.recordCompactionFailure(verdict.code);
      this.stats.failures++;
    }
    return decision;
  }

  private results(decision: CompactDecision, summaryShare: number): CompactionResults {
    const cuts = [...decision.prune, ...decision.tailCuts];
    const views = cuts.map((cut) => ({
      replacedSeq: cut.seq,
      seq: this.allocate(false),
      tokens: cut.expectedTokens,
      chars: cut.headChars + cut.tailChars + 120,
    }));
    if (decision.strategy !== 'summary') return { views };
    const summarized = new Set(fromSeqRuns(decision.summarize));
    const olderRaw = this.ledger.filter((entry) => summarized.has(entry.seq)).reduce((sum, entry) => sum + entry.tokens, 0);
    const budgetRaw = Math.floor(decision.summaryBudgetTokens / decision.projection.calibration);
    const tokens = Math.max(1, Math.floor(summaryShare * Math.min(budgetRaw, olderRaw)));
    // The session memory comes out at most at its budget (the activity fits it); here, at the budget.
    const memoryTokens = Math.floor(decision.memoryBudgetTokens / decision.projection.calibration);
    return {
      views,
      summary: { seq: this.allocate(false), tokens, chars: tokens * 4 },
      memory: { seq: this.allocate(false), tokens: memoryTokens, chars: memoryTokens * 4 },
    };
  }

  private checkApplied(before: readonly LedgerEntry[], after: readonly LedgerEntry[], decision: CompactDecision): void {
    const pinned = pinnedProblem(before, after);
    assert.equal(pinned, undefined, pinned);
    // The tail survives verbatim or as views of the same tool calls, in the same order, at the end.
    const tailAfter = after.slice(after.length - decision.tail.length);
    const cut = new Set(decision.tailCuts.map((c) => c.seq));
    decision.tail.forEach((seq, i) => {
      const entry = tailAfter[i]!;
      if (cut.has(seq)) assert.equal(entry.kind, 'view');
      else assert.equal(entry.seq, seq, 'tail entry moved or changed');
    });
  }

  private adopt(ledger: LedgerEntry[], when: string): void {
    this.ledger = ledger;
    // The anchor measured a context that no longer exists.
    this.anchor = undefined;
    this.checkLedger(when);
  }

  private checkLedger(when: string): void {
    const orphan = orphanProblem(this.ledger);
    assert.equal(orphan, undefined, `${when}: ${orphan}`);
    const report = accounting(this.originals, this.ledger, this.truncated);
    assert.ok(report.ok, `${when}: accounting ${JSON.stringify(report)}`);
  }

  /** Appends an original message; bodies other than tool results are prose, about 4 chars a token. */
  private append(entry: Omit<LedgerEntry, 'seq' | 'chars'> & { chars?: number }): void {
    this.ledger.push({ seq: this.allocate(true), chars: entry.tokens * 4, ...entry });
  }

  private allocate(original: boolean): number {
    const seq = this.nextSeq++;
    if (original) this.originals.push(seq);
    return seq;
  }
}

/** Rules of a `compact` decision against the ledger it was taken on. */
export function checkCompaction(decision: CompactDecision, input: DecideInput, estimate: number): void {
  const { ledger, settings: s } = input;
  const overhead = s.perMessageOverheadTokens;
  if (input.request === 'auto') {
    // The newer rules: an open breaker's one retry runs at its step (under the trigger too, with
    // landWithRoom), and with the breaker open a graceful session still prunes without a model.
    const halfOpen = (input.graceful === true || input.landWithRoom === true) && isHalfOpen(input.breaker, input.step);
    const retryUnderTrigger = input.landWithRoom === true && halfOpen;
    assert.ok(estimate >= s.triggerTokens || retryUnderTrigger, 'auto compaction under the trigger');
    const modelFree = input.graceful === true && decision.strategy === 'prune';
    assert.ok(!input.breaker.open || halfOpen || modelFree, 'auto compaction with the breaker open');
    assert.ok(s.auto, 'auto compaction with auto off');
  }
  assert.equal(decision.requestedBy, input.request);
  assert.equal(decision.estimateBefore, estimate);
  assert.deepEqual(decision.pinned, ledger.filter((entry) => entry.pinned).map((entry) => entry.seq), 'pinned entries kept');

  // The tail is a suffix of the unpinned ledger, starts on a step boundary and holds no summary.
  const unpinned = ledger.filter((entry) => !entry.pinned);
  const suffix = unpinned.slice(unpinned.length - decision.tail.length).map((entry) => entry.seq);
  assert.deepEqual(decision.tail, suffix, 'the tail is the newest part of the context');
  const tailEntries = unpinned.slice(unpinned.length - decision.tail.length);
  if (tailEntries.length > 0) assert.notEqual(tailEntries[0]!.role, 'tool', 'the tail starts mid-step');
  assert.ok(tailEntries.every((entry) => entry.kind !== 'summary'), 'a summary in the tail');
  const orphan = orphanProblem(tailEntries);
  assert.equal(orphan, undefined, `tail: ${orphan}`);

  // The tail never exceeds the trigger (after its cuts).
  const cutSaving = decision.tailCuts.reduce((sum, cut) => sum + cut.tokensBefore - cut.expectedTokens, 0);
  const tailWeight = tailEntries.reduce((sum, entry) => sum + entry.tokens + overhead, 0) - cutSaving;
  assert.ok(
    calibratedTokens(tailWeight, decision.projection.calibration) <= s.triggerTokens,
    `tail ${tailWeight} over the trigger ${s.triggerTokens}`,
  );
  const tailSet = new Set(decision.tail);
  assert.ok(decision.tailCuts.every((cut) => tailSet.has(cut.seq)), 'a tail cut outside the tail');

  // Never a no-op: something is summarized, or something is cut smaller.
  const cuts = [...decision.prune, ...decision.tailCuts];
  assert.ok(cuts.every((cut) => cut.expectedTokens < cut.tokensBefore), 'a cut that does not shrink');
  if (decision.strategy === 'summary') {
    const summarized = new Set(fromSeqRuns(decision.summarize));
    const older = unpinned.slice(0, unpinned.length - decision.tail.length);
    const memory = older.filter((entry) => entry.kind === 'memory').map((entry) => entry.seq);
    assert.deepEqual([...summarized], older.filter((entry) => entry.kind !== 'memory').map((entry) => entry.seq), 'summary covers exactly the older region');
    assert.deepEqual(fromSeqRuns(decision.replacedMemory), memory, 'the older session memory is the one replaced');
    assert.ok(older.some((entry) => entry.kind !== 'summary'), 'a summary of nothing but the previous summary');
    assert.deepEqual(decision.prune, []);
  } else {
    assert.ok(cuts.length > 0, 'a prune compaction that cuts nothing');
    assert.deepEqual(decision.summarize, []);
    const older = new Set(unpinned.slice(0, unpinned.length - decision.tail.length).map((entry) => entry.seq));
    assert.ok(decision.prune.every((cut) => older.has(cut.seq)), 'a prune inside the tail');
  }

  // The expected estimate is where it must land (the target with landWithRoom, else under the
  // trigger), or the decision says why not.
  if (input.landWithRoom === true) {
    assert.equal(decision.landAt, s.targetTokens, 'landAt is the target');
    assert.ok(decision.expectedAfter <= decision.landAt || decision.shortfall !== undefined, 'over the target without a reason');
    if (decision.shortfall) assert.equal(decision.shortfall.overByTokens, decision.expectedAfter - decision.landAt);
  } else {
    assert.equal(decision.landAt, undefined, 'landAt under the earlier rules');
    assert.ok(decision.expectedAfter < s.triggerTokens || decision.shortfall !== undefined, 'over the trigger without a reason');
    if (decision.shortfall) assert.equal(decision.shortfall.overByTokens, decision.expectedAfter - s.triggerTokens);
  }
}

/** Rules of a `truncate` decision. */
export function checkTruncation(decision: TruncateDecision, ledger: readonly LedgerEntry[], overhead: number): void {
  const dropped = new Set(fromSeqRuns(decision.drop));
  assert.ok(dropped.size > 0, 'a truncation that drops nothing');
  assert.ok(ledger.every((entry) => !entry.pinned || !dropped.has(entry.seq)), 'a pinned entry dropped');
  const spans = stepSpans(ledger, overhead);
  const newest = spans[spans.length - 1]!;
  for (let i = newest.start; i < newest.end; i++) assert.ok(!dropped.has(ledger[i]!.seq), 'the newest step dropped');
  const kept = ledger.filter((entry) => !dropped.has(entry.seq));
  const orphan = orphanProblem(kept);
  assert.equal(orphan, undefined, `after truncation: ${orphan}`);
  assert.ok(decision.expectedAfter <= decision.goal || decision.shortfall !== undefined, 'over the goal without a reason');
}
