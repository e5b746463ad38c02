/**
 * A small seeded PRNG (mulberry32, public domain, Tommy Ettinger): the synthetic catalogue is a
 * pure function of its seed. Not for anything cryptographic.
 */
export class Rng {
  #s: number

  constructor(seed: number) {
    this.#s = seed >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  /** Uniform real in [lo, hi). */
  real(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo)
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next())
  }

  /** Index drawn with probability proportional to weights[i]. */
  pick(weights: ArrayLike<number>, total?: number): number {
    let sum = total ?? 0
    if (total === undefined) for (let i = 0; i < weights.length; i++) sum += weights[i]!
    let r = this.next() * sum
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!
      if (r < 0) return i
    }
    return weights.length - 1
  }

  /** Rounds x up or down at random so that the expected value is x. */
  round(x: number): number {
    const f = Math.floor(x)
    return f + (this.next() < x - f ? 1 : 0)
  }
}

/** Mixes a seed with a label (FNV-1a), so each rover has its own independent stream. */
export function subSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0
  return h
}
