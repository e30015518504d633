/**
 * A small seeded pseudo-random generator (mulberry32) for property tests that must replay: the same seed gives the same
 * sequence on every run and machine, so a failing case is found again from the seed its message names.
 */
export function prng(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** an integer from min to max, both included */
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    /** one of the values */
    pick: <T>(values: readonly T[]): T => values[int(0, values.length - 1)],
    /** true with probability p */
    chance: (p: number): boolean => next() < p,
  };
}
