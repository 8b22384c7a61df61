/** A small seeded PRNG, shared by tests and benchmarks: fault points look random, yet a failing run can be replayed from its seed. */

/** mulberry32: uniform in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max]. */
export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** AGENTD_FAULT_SEED when set (to replay a run), else one derived from the clock; print it either way. */
export function faultSeed(): number {
  const fromEnv = process.env.AGENTD_FAULT_SEED;
  return fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Date.now() % 2 ** 31;
}
