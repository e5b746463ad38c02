/**
 * One Prometheus text exposition from several processes' (the workers of one supervisor): a
 * series present in several is added up — counters and histograms count every worker's
 * requests, and the memory and cache-size gauges are the machine's totals — except the gauges
 * that describe one shared thing (which index, when it was built, how old it is), where the
 * largest value stands. Comment lines are kept once, in the order first seen. Linear in the input.
 */
const SHARED_GAUGES = new Set(['index_info', 'index_build_time_seconds', 'index_age_seconds', 'process_uptime_seconds'])

export function sumExpositions(texts: string[]): string {
  const types = new Map<string, string>()
  const order: string[] = [] // comment lines and series keys, first seen first
  const comments = new Set<string>()
  const values = new Map<string, number>()
  for (const text of texts) {
    for (const line of text.split('\n')) {
      if (line === '') continue
      if (line.startsWith('#')) {
        const t = /^# TYPE (\S+) (\S+)/.exec(line)
        if (t) types.set(t[1]!, t[2]!)
        if (!comments.has(line)) {
          comments.add(line)
          order.push(line)
        }
        continue
      }
      const cut = line.lastIndexOf(' ')
      if (cut < 0) continue
      const series = line.slice(0, cut)
      const value = Number(line.slice(cut + 1))
      if (!Number.isFinite(value)) continue
      const name = series.replace(/\{.*$/, '')
      const before = values.get(series)
      if (before === undefined) {
        order.push('\0' + series)
        values.set(series, value)
      } else values.set(series, types.get(name) === 'gauge' && SHARED_GAUGES.has(name) ? Math.max(before, value) : before + value)
    }
  }
  return order.map((e) => (e.startsWith('\0') ? `${e.slice(1)} ${values.get(e.slice(1))}` : e)).join('\n') + '\n'
}
