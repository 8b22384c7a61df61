/** `--summarizers=prose,lossy` (a bench argument): the simulator summarizer behaviours a benchmark runs under. */
import { SUMMARIZER_BEHAVIOURS, type SummarizerBehaviour } from '../../src/simulator/options';

/** The behaviours named by `--summarizers=`, in the simulator's order; all of them by default. */
export function summarizerBehaviours(argv: readonly string[] = process.argv): SummarizerBehaviour[] {
  const arg = argv.find((value) => value.startsWith('--summarizers='))?.slice('--summarizers='.length);
  if (arg === undefined) return [...SUMMARIZER_BEHAVIOURS];
  return SUMMARIZER_BEHAVIOURS.filter((behaviour) => arg.split(',').includes(behaviour));
}
