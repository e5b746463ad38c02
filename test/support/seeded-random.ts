/**
 * Deterministic pseudo-random numbers in [0, 1) (xorshift32) from a seed, so a test that draws
 * random tables or values reproduces its failure from the seed it names.
 */
export function seededRandom(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}
