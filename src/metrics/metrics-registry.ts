/**
 * A small Prometheus registry (text exposition format 0.0.4): counters and histograms with
 * labels, gauges read at scrape time. Equivalent to what prom-client offers for these needs,
 * without its per-observation label-object allocation on the request path.
 */
/** Joins the label values of one series into its map key. */
export const SERIES_SEPARATOR = '\u0000'

export const LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

/** One counter series: callers on the hot path keep it and add to `value` (no key built per count). */
export interface CounterSeries {
  value: number
}

export class Counter {
  readonly #values = new Map<string, CounterSeries>()
  constructor(readonly name: string, readonly help: string, readonly labels: readonly string[]) {}
  inc(values: readonly string[], by = 1): void {
    this.series(seriesKey(values)).value += by
  }
  /** The series of key seriesKey(values), created at 0. */
  series(k: string): CounterSeries {
    let s = this.#values.get(k)
    if (s === undefined) this.#values.set(k, (s = { value: 0 }))
    return s
  }
  render(): string {
    let s = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} counter\n`
    for (const [k, v] of this.#values) s += `${this.name}${labelText(this.labels, k.split(SERIES_SEPARATOR))} ${v.value}\n`
    return s
  }
}

/** One histogram series: per-bucket counts (not cumulative: made cumulative when rendered), sum and count. */
export interface HistogramSeries {
  readonly bounds: readonly number[]
  readonly counts: Float64Array
  sum: number
  count: number
}

export class Histogram {
  readonly #series = new Map<string, HistogramSeries>()
  constructor(readonly name: string, readonly help: string, readonly labels: readonly string[], readonly bounds: readonly number[] = LATENCY_BUCKETS_S) {}
  observe(values: readonly string[], v: number): void {
    observeIn(this.series(seriesKey(values)), v)
  }
  /** The series of key seriesKey(values), created empty. */
  series(k: string): HistogramSeries {
    let s = this.#series.get(k)
    if (s === undefined) this.#series.set(k, (s = { bounds: this.bounds, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 }))
    return s
  }
  render(): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} histogram\n`
    for (const [k, s] of this.#series) {
      const vals = k.split(SERIES_SEPARATOR)
      let cumulative = 0
      this.bounds.forEach((b, i) => {
        cumulative += s.counts[i]!
        out += `${this.name}_bucket${labelText([...this.labels, 'le'], [...vals, String(b)])} ${cumulative}\n`
      })
      out += `${this.name}_bucket${labelText([...this.labels, 'le'], [...vals, '+Inf'])} ${s.count}\n`
      out += `${this.name}_sum${labelText(this.labels, vals)} ${s.sum}\n${this.name}_count${labelText(this.labels, vals)} ${s.count}\n`
    }
    return out
  }
}

/** Counts `v` in its bucket (the first bound it does not exceed; none past the last: only +Inf). */
export function observeIn(s: HistogramSeries, v: number): void {
  const b = s.bounds
  for (let i = 0; i < b.length; i++) {
    if (v <= b[i]!) {
      s.counts[i]!++
      break
    }
  }
  s.sum += v
  s.count++
}

/** The map key of one label-value series. */
export function seriesKey(values: readonly string[]): string {
  return values.join(SERIES_SEPARATOR)
}

export function gauge(name: string, help: string, samples: Array<[Record<string, string>, number]>): string {
  let s = `# HELP ${name} ${help}\n# TYPE ${name} gauge\n`
  for (const [labels, v] of samples) s += `${name}${labelText(Object.keys(labels), Object.values(labels))} ${v}\n`
  return s
}

function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return ''
  return '{' + names.map((n, i) => `${n}="${esc(values[i] ?? '')}"`).join(',') + '}'
}
