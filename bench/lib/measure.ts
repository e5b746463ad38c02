/**
 * Timing primitives. Every figure the bench reports is a median over repeated rounds:
 * a round takes samples of one operation until its time budget or sample cap is spent,
 * and gives its own p50 and p99; the reported p50/p99 are the medians of those.
 */

export interface MeasureOptions {
  /** Rounds whose per-round percentiles are combined by their median. */
  rounds: number
  /** Time budget of one round, ms (sampling stops at the first of budget and maxSamples). */
  budgetMs: number
  minSamples: number
  maxSamples: number
  /** Untimed calls before the first round (JIT warm-up). */
  warmup: number
}

export interface Timing {
  /** Median of the rounds' medians, ms. */
  p50: number
  /** Median of the rounds' 99th percentiles, ms. */
  p99: number
  /** The lowest and highest of the rounds' medians, ms (how much the machine moved under the run). */
  p50Lo: number
  p50Hi: number
  /** Samples taken in all rounds. */
  samples: number
  rounds: number
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Nearest-rank percentile (q in 0..1) of unsorted samples. */
export function percentile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const rank = Math.min(s.length, Math.max(1, Math.ceil(q * s.length)))
  return s[rank - 1]
}

const nowMs = () => Bun.nanoseconds() / 1e6

function combine(perRound: Array<{ p50: number; p99: number; n: number }>): Timing {
  return {
    p50: median(perRound.map((r) => r.p50)),
    p99: median(perRound.map((r) => r.p99)),
    p50Lo: Math.min(...perRound.map((r) => r.p50)),
    p50Hi: Math.max(...perRound.map((r) => r.p50)),
    samples: perRound.reduce((a, r) => a + r.n, 0),
    rounds: perRound.length,
  }
}

/** One timing round of a synchronous call: samples until its time budget or sample cap is spent. */
function roundSync(fn: () => unknown, o: MeasureOptions): { p50: number; p99: number; n: number } {
  Bun.gc(true) // garbage left by the previous shape or round is not charged to this one
  const xs: number[] = []
  const end = nowMs() + o.budgetMs
  while (xs.length < o.maxSamples && (xs.length < o.minSamples || nowMs() < end)) {
    const t0 = nowMs()
    fn()
    xs.push(nowMs() - t0)
  }
  return { p50: percentile(xs, 0.5), p99: percentile(xs, 0.99), n: xs.length }
}

/** Times a synchronous call (its rounds are those of measureInterleaved with one call); throws what the call throws. */
export function measureSync(fn: () => unknown, o: MeasureOptions): Timing {
  const [t] = measureInterleaved([fn], o)
  if (t instanceof Error) throw t
  return t
}

/**
 * Times several synchronous calls in interleaved rounds: round 1 of every call, then round 2 of
 * every call, and so on, each call's figures the median of its rounds as measureSync gives them.
 *
 * Why interleaved: a shared machine loses speed for seconds at a time when the host puts other
 * work beside ours (on the 2-core development VM, during such periods an L1-resident loop ran 23%
 * slower and a page of 100 photos 2x slower, while plain arithmetic kept its speed). A call's
 * rounds taken back to back fall into one such period together, and its figures are then the
 * period's; rounds spread over the whole run mostly fall outside it, and the median of the rounds
 * leaves out the few that do not. A call that throws ends its own rounds with that error; the
 * others go on.
 */
export function measureInterleaved(fns: ReadonlyArray<() => unknown>, o: MeasureOptions): Array<Timing | Error> {
  const perRound = fns.map(() => [] as Array<{ p50: number; p99: number; n: number }>)
  const failed: Array<Error | undefined> = fns.map(() => undefined)
  const guard = (i: number, run: () => void) => {
    if (failed[i]) return
    try {
      run()
    } catch (e) {
      failed[i] = e instanceof Error ? e : new Error(String(e))
    }
  }
  fns.forEach((fn, i) => guard(i, () => {
    for (let k = 0; k < o.warmup; k++) fn()
  }))
  for (let r = 0; r < o.rounds; r++) fns.forEach((fn, i) => guard(i, () => void perRound[i].push(roundSync(fn, o))))
  return fns.map((_, i) => failed[i] ?? combine(perRound[i]))
}

/** Times an asynchronous call (awaited one at a time: latency, not throughput). */
export async function measureAsync(fn: () => Promise<unknown>, o: MeasureOptions): Promise<Timing> {
  for (let i = 0; i < o.warmup; i++) await fn()
  const perRound: Array<{ p50: number; p99: number; n: number }> = []
  for (let r = 0; r < o.rounds; r++) {
    Bun.gc(true) // garbage left by the previous shape or round is not charged to this one
    const xs: number[] = []
    const end = nowMs() + o.budgetMs
    while (xs.length < o.maxSamples && (xs.length < o.minSamples || nowMs() < end)) {
      const t0 = nowMs()
      await fn()
      xs.push(nowMs() - t0)
    }
    perRound.push({ p50: percentile(xs, 0.5), p99: percentile(xs, 0.99), n: xs.length })
  }
  return combine(perRound)
}

/** Wall time of one call, ms. */
export async function timeOnce<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = nowMs()
  const value = await fn()
  return { ms: nowMs() - t0, value }
}

/** Rounds a figure for reports: 3 significant digits, at most 3 decimals. */
export function round3(x: number): number {
  if (!Number.isFinite(x)) return x
  if (x === 0) return 0
  const digits = Math.max(0, Math.min(3, 2 - Math.floor(Math.log10(Math.abs(x)))))
  return Number(x.toFixed(digits))
}
