/**
 * Benchmark 1, history growth: Temporal history bytes per step of a 300-step session with 20 KB
 * tool outputs on a 128K window, agentd against the naive foil (the whole message list as activity
 * input) on the same dev server. Both talk to the strict simulator over HTTP.
 */
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { runFoil } from '../harness/foil/runFoil';
import type { Stack } from '../harness/stack';
import { int, kb, mb, ratio, say, table, type BenchBody } from './lib/result';

const STEPS = 300;
const WINDOW = 128_000;
/** A simulated window the foil cannot fill before Temporal's limits end it. */
const UNBOUNDED_WINDOW = 10_000_000;
const TASK = `grow the history [sim steps=${STEPS} output=20000-20000]`;
/** How often the agentd run's history size is sampled while it runs. */
const SAMPLE_MS = 2_000;

interface Sample {
  step: number;
  bytes: number;
}

export async function historyBench(stack: Stack): Promise<BenchBody> {
  const simulator = { contextWindow: WINDOW };
  const agentd = await stack.withWorker(simulator, async () => {
    const handle = await stack.sessions.start({ task: TASK, model: 'agentd-sim', contextWindow: WINDOW, maxSteps: STEPS + 10 });
    const samples: Sample[] = [];
    let done = false;
    const result = stack.sessions.result(handle.workflowId).finally(() => (done = true));
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      const [state, description] = await Promise.all([stack.sessions.state(handle.workflowId), handle.describe()]).catch(() => []);
      if (state && description && description.historySize) samples.push({ step: state.step, bytes: description.historySize });
    }
    const finished = await result;
    const description = await handle.describe();
    const state = await stack.sessions.state(handle.workflowId);
    return { result: finished, bytes: description.historySize ?? 0, events: description.historyLength, runs: state.runs, compactions: state.compaction.byStrategy, samples };
  });
  say(`agentd: ${agentd.result.outcome} after ${agentd.result.steps} steps, history ${int(agentd.bytes)} B in ${agentd.events} events (${agentd.runs} run)`);

  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../harness/foil/workflows'), logger: new DefaultLogger('WARN') });
  const foil = await runFoil(
    { address: stack.temporal.address, client: stack.client, bundle, workspaceRoot: stack.workspaceRoot },
    simulator,
    TASK,
    STEPS + 10,
    200_000,
  );
  say(`foil: ${foil.status} at step ${foil.step}, history ${int(foil.historyBytes)} B in ${foil.historyEvents} events; ${foil.why}`);
  // The same foil on an endpoint with a window it cannot fill, so only Temporal's own limits stop it.
  const unbounded = await runFoil(
    { address: stack.temporal.address, client: stack.client, bundle, workspaceRoot: stack.workspaceRoot },
    { contextWindow: UNBOUNDED_WINDOW },
    TASK,
    STEPS + 10,
    200_000,
  );
  const unboundedPerStep = unbounded.historyBytes / unbounded.step;
  say(`foil, ${int(UNBOUNDED_WINDOW)}-token endpoint: ${unbounded.status} at step ${unbounded.step}, history ${int(unbounded.historyBytes)} B in ${unbounded.historyEvents} events; ${unbounded.why}`);

  const agentdPerStep = agentd.bytes / agentd.result.steps;
  const foilPerStep = foil.historyBytes / foil.step;
  // agentd's history when it was where the foil stopped: the nearest sample at or past that step.
  const atFoilStep = agentd.samples.find((sample) => sample.step >= foil.step);
  const agentdAtFoil = atFoilStep ? atFoilStep.bytes / atFoilStep.step : undefined;
  say(`bytes/step: agentd ${int(agentdPerStep)}, foil ${int(foilPerStep)} (${ratio(foilPerStep, agentdPerStep)})`);

  return {
    figures: {
      task: TASK,
      contextWindow: WINDOW,
      agentd: {
        outcome: agentd.result.outcome,
        steps: agentd.result.steps,
        historyBytes: agentd.bytes,
        historyEvents: agentd.events,
        runs: agentd.runs,
        compactions: agentd.compactions,
        bytesPerStep: agentdPerStep,
        samples: agentd.samples,
      },
      foil: { ...foil, bytesPerStep: foilPerStep },
      foilUnboundedWindow: { ...unbounded, simulatorWindow: UNBOUNDED_WINDOW, bytesPerStep: unboundedPerStep },
      agentdBytesPerStepAtFoilEnd: agentdAtFoil ?? null,
      foilOverAgentdPerStep: foilPerStep / agentdPerStep,
    },
    markdown: [
      `Task \`${TASK}\`, declared and simulated window ${int(WINDOW)} tokens, every fourth step a 20,000-byte \`run_command\` output.`,
      '',
      ...table(
        ['run', 'ended', 'steps', 'history', 'events', 'bytes / step'],
        [
          ['agentd', `${agentd.result.outcome} (${agentd.runs} run, ${agentd.compactions.summary} summaries, ${agentd.compactions.prune} prunes)`, int(agentd.result.steps), mb(agentd.bytes), int(agentd.events), `**${int(agentdPerStep)} B**`],
          ['naive foil', `${foil.status} (model refused the request, see below)`, int(foil.step), mb(foil.historyBytes), int(foil.historyEvents), `**${int(foilPerStep)} B**`],
          [`naive foil, ${int(UNBOUNDED_WINDOW)}-token endpoint`, `${unbounded.status}: ${unbounded.why.replace(/^terminated: /, '')}`, int(unbounded.step), mb(unbounded.historyBytes), int(unbounded.historyEvents), `**${int(unboundedPerStep)} B**`],
        ],
      ),
      '',
      `Foil ÷ agentd, bytes per step: **${ratio(foilPerStep, agentdPerStep)}**` +
        (agentdAtFoil === undefined || atFoilStep === undefined
          ? '.'
          : ` (over the same first ${atFoilStep.step} steps agentd wrote ${kb(atFoilStep.bytes)}, ${int(agentdAtFoil)} B per step: ${ratio(foilPerStep, agentdAtFoil)}).`),
      `The foil stopped at step ${foil.step}: \`${foil.why}\` — with no compaction its message list outgrew the window.`,
      `Run again against an endpoint with a ${int(UNBOUNDED_WINDOW)}-token window, only Temporal's limits (dev server defaults) stop it: step ${unbounded.step}, ${mb(unbounded.historyBytes)}.`,
      `The foil's bytes per step are averages up to where it stopped and grow with every step (the whole list travels as activity input), while agentd's stay flat.`,
    ],
  };
}
