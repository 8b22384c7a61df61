/**
 * One summarizer behaviour of the cost benchmark: a session per window and compaction policy (agentd's
 * current one and the baseline), all side by side on one worker, behind one metering proxy that sends
 * each session to the strict simulator of its window.
 * Each session gets the planted facts; what it sent, and what the simulator said was cached, come off
 * the wire; its compactions from the state query (polled, as it keeps only the newest notices).
 */
import { join } from 'node:path';
import type { ChatMessage } from '../../src/model/messages';
import { createModelClient } from '../../src/model/client';
import type { CompactionNotice, SessionState } from '../../src/session/state';
import type { SummarizerBehaviour } from '../../src/simulator/options';
import { startSimulator } from '../../src/simulator/server';
import type { Stack } from '../../harness/stack';
import { factsPresent, laterMessage, secondMessage } from './plantedFacts';
import { PlantedSession } from './plantedSession';
import { num, say } from './result';
import { startUsageProxy, type MeteredCall } from './usageProxy';

/** A compaction policy the benchmark runs: agentd's defaults, or the settings of the policy before them. */
export interface Policy {
  readonly id: 'current' | 'baseline';
  /** The session input's `compaction`. */
  readonly compaction: Readonly<Record<string, unknown>>;
}

/** How long each session is: `turns` turns of `turnSteps` tool steps and one answer each. */
export interface SessionShape {
  readonly turns: number;
  readonly turnSteps: number;
}

/** A context window and the tool output that makes a session on it compact. */
export interface WindowSetup {
  /** How the reports name it: `32K`, `32K busy`. */
  readonly name: string;
  readonly window: number;
  /** `[sim output=MIN-MAX]`: bytes of each `run_command` output. */
  readonly output: string;
  /** `[sim pace=busy]`: a command at three steps of four rather than one. */
  readonly pace?: 'busy';
}

/** Prompt and cached tokens over a set of answered calls. */
export interface TokenTotals {
  readonly calls: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
}

/** One session's figures. */
export interface CostRun {
  readonly behaviour: SummarizerBehaviour;
  /** The WindowSetup's name. */
  readonly setup: string;
  readonly window: number;
  /** `run_command` output bytes, as the task asked. */
  readonly output: string;
  readonly policy: Policy['id'];
  readonly status: SessionState['status'];
  readonly outcome: string | null;
  readonly failure: string | null;
  readonly steps: number;
  readonly plannedSteps: number;
  readonly byStrategy: SessionState['compaction']['byStrategy'];
  /** Compactions that failed (they count on the breaker), from the notices seen. */
  readonly failedCompactions: number;
  readonly noticesTotal: number;
  readonly trigger: number;
  /** Successful compactions whose `tokensAfter` was at or over the trigger, of those seen. */
  readonly overTriggerAfter: number;
  readonly compactionsChecked: number;
  /** Largest `tokensAfter` of a successful compaction. */
  readonly largestAfter: number;
  readonly breaker: SessionState['compaction']['breaker'];
  readonly factsTotal: number;
  /** Facts in the last step request (not a summary call) the simulator answered. */
  readonly factsPresent: readonly string[];
  readonly factsMissing: readonly string[];
  /** Of the missing facts, those no step request ever held: never stated, rather than lost. */
  readonly factsNeverStated: readonly string[];
  readonly all: TokenTotals;
  readonly summary: TokenTotals;
  /** Requests not answered with 200 (a failing summarizer, a refused oversize request). */
  readonly refusedRequests: number;
  readonly elapsedMs: number;
}

/** What the proxy saw of one session, as its requests were answered. */
class SessionProbe {
  readonly calls: MeteredCall[] = [];
  readonly notices = new Map<string, CompactionNotice>();
  lastMessages: readonly ChatMessage[] = [];

  get label(): string {
    return `${this.setup.name} ${this.policy.id}`;
  }

  constructor(
    readonly setup: WindowSetup,
    readonly policy: Policy,
    readonly sessionId: string,
    readonly task: string,
    readonly planted: PlantedSession,
  ) {}

  answered(messages: readonly ChatMessage[], call: MeteredCall): void {
    this.calls.push(call);
    if (call.summarizing) return;
    this.lastMessages = messages;
    this.planted.stepRequest(messages);
  }

  /** Keeps every notice the state query shows; it holds only the newest, so this is called often. */
  see(state: SessionState): void {
    for (const notice of state.compaction.notices) this.notices.set(`${notice.at}|${notice.step}|${notice.strategy}|${notice.tokensBefore}`, notice);
  }
}

function totals(calls: readonly MeteredCall[]): TokenTotals {
  return {
    calls: calls.length,
    promptTokens: calls.reduce((sum, call) => sum + call.promptTokens, 0),
    cachedTokens: calls.reduce((sum, call) => sum + call.cachedTokens, 0),
  };
}

function taskFor(behaviour: SummarizerBehaviour, setup: WindowSetup, policy: Policy, shape: SessionShape): string {
  // Policy and setup in the task keep the sessions' prompts apart, so none is served from another's cache.
  const pace = setup.pace === undefined ? '' : ` pace=${setup.pace}`;
  return (
    `Tidy up the parser module and keep its tests green (${policy.id} run, ${setup.name} session). ` +
    `[sim steps=${shape.turnSteps} output=${setup.output}${pace} summarizer=${behaviour}]`
  );
}

function failureOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}

/**
 * Polls the sessions' state often enough to see every notice (the query keeps only the newest) and
 * prints where each session is every 30 s, until `done`.
 */
async function watch(stack: Stack, probes: readonly SessionProbe[], done: () => boolean, started: number): Promise<void> {
  const POLL_MS = 1_500;
  const PROGRESS_MS = 30_000;
  let lastProgress = performance.now();
  while (!done()) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const states = await Promise.all(probes.map((probe) => stack.sessions.queryState(probe.sessionId, { waitMs: 10_000 }).catch(() => undefined)));
    states.forEach((state, index) => state && probes[index]?.see(state));
    if (performance.now() - lastProgress >= PROGRESS_MS && !done()) {
      lastProgress = performance.now();
      const where = states.map((state, index) => `${probes[index]?.label ?? '?'} step ${state?.step ?? '?'}`).join(', ');
      say(`  ${where} (${num((performance.now() - started) / 1000, 0)} s)`);
    }
  }
}

/** Runs the behaviour's sessions side by side to their ends and returns their figures, in the order of `setups` × `policies`. */
export async function runBehaviour(
  stack: Stack,
  behaviour: SummarizerBehaviour,
  setups: readonly WindowSetup[],
  policies: readonly Policy[],
  shape: SessionShape,
): Promise<CostRun[]> {
  const started = performance.now();
  const stamp = Date.now();
  const probes = setups.flatMap((setup) =>
    policies.map((policy) => {
      const sessionId = `bench-cost-${behaviour}-${setup.name.replace(/\W+/g, '-')}-${policy.id}-${stamp}`;
      return new SessionProbe(setup, policy, sessionId, taskFor(behaviour, setup, policy, shape), new PlantedSession(join(stack.workspaceRoot, sessionId)));
    }),
  );
  const byTask = new Map(probes.map((probe) => [probe.task, probe]));
  const simulators = await Promise.all(setups.map((setup) => startSimulator({ contextWindow: setup.window })));
  const portOf = new Map(setups.map((setup, index) => [setup, simulators[index]?.port ?? 0]));
  const fallbackPort = simulators[0]?.port ?? 0;
  const proxy = await startUsageProxy(
    (task) => {
      const setup = byTask.get(task ?? '')?.setup;
      return (setup === undefined ? undefined : portOf.get(setup)) ?? fallbackPort;
    },
    (messages, call) => byTask.get(call.task)?.answered(messages, call),
  );
  const plannedSteps = shape.turns * (shape.turnSteps + 1);
  try {
    return await stack.runWorker({ model: createModelClient({ baseURL: proxy.baseURL }) }, async () => {
      let finished = 0;
      const ends = probes.map(async (probe) => {
        probe.planted.plant();
        await stack.sessions.start(
          {
            task: probe.task,
            model: 'agentd-sim',
            contextWindow: probe.setup.window,
            maxTurns: shape.turns,
            maxSteps: plannedSteps + 20,
            // Every message is queued during turn 1; the short wait only covers a slow signal.
            awaitMessagesSeconds: 2,
            compaction: probe.policy.compaction,
          },
          { sessionId: probe.sessionId },
        );
        await stack.sessions.send(probe.sessionId, secondMessage(shape.turnSteps));
        for (let part = 3; part <= shape.turns; part += 1) await stack.sessions.send(probe.sessionId, laterMessage(part, shape.turnSteps));
        const failure = await stack.sessions.result(probe.sessionId).then(
          () => null,
          (error: unknown) => failureOf(error),
        );
        const elapsedMs = performance.now() - started;
        finished += 1;
        // The session has ended: its final state holds its last notices, and the proxy has seen all its requests.
        const state = await stack.sessions.state(probe.sessionId);
        probe.see(state);
        return figuresOf(probe, state, behaviour, plannedSteps, { failure, elapsedMs }, proxy.refused().get(probe.task) ?? 0);
      });
      // A session that fails to start rejects the whole run: the watch stops then too, or it would keep the bench alive.
      let failed = false;
      const watching = watch(stack, probes, () => failed || finished === probes.length, started);
      const runs = await Promise.all(ends).catch((error: unknown) => {
        failed = true;
        throw error;
      });
      await watching;
      return runs;
    });
  } finally {
    await proxy.stop();
    await Promise.all(simulators.map((simulator) => simulator.stop()));
  }
}

function figuresOf(
  probe: SessionProbe,
  state: SessionState,
  behaviour: SummarizerBehaviour,
  plannedSteps: number,
  end: { failure: string | null; elapsedMs: number },
  refusedRequests: number,
): CostRun {
  const notices = [...probe.notices.values()];
  const succeeded = notices.filter((notice) => notice.failed === undefined);
  const trigger = state.compaction.trigger;
  const present = factsPresent(probe.planted.facts, probe.lastMessages);
  return {
    behaviour,
    setup: probe.setup.name,
    window: probe.setup.window,
    output: probe.setup.output,
    policy: probe.policy.id,
    status: state.status,
    outcome: state.outcome ?? null,
    failure: end.failure,
    steps: state.step,
    plannedSteps,
    byStrategy: state.compaction.byStrategy,
    failedCompactions: notices.length - succeeded.length,
    noticesTotal: state.compaction.noticesTotal,
    trigger,
    overTriggerAfter: succeeded.filter((notice) => notice.tokensAfter >= trigger).length,
    compactionsChecked: succeeded.length,
    largestAfter: Math.max(0, ...succeeded.map((notice) => notice.tokensAfter)),
    breaker: state.compaction.breaker,
    factsTotal: probe.planted.facts.length,
    factsPresent: present,
    factsMissing: probe.planted.facts.map((fact) => fact.id).filter((id) => !present.includes(id)),
    factsNeverStated: probe.planted.facts.map((fact) => fact.id).filter((id) => !probe.planted.entered.has(id)),
    all: totals(probe.calls),
    summary: totals(probe.calls.filter((call) => call.summarizing)),
    refusedRequests,
    elapsedMs: end.elapsedMs,
  };
}
