import type { AppDeps } from '../app-deps'
import { responseCacheFor } from '../query/cache/response-cache'
import { Counter, gauge, Histogram, observeIn, SERIES_SEPARATOR as SEP, type CounterSeries, type HistogramSeries } from './metrics-registry'

/**
 * The service's figures for Prometheus: requests and latency per route pattern, method and
 * status; rate-limit decisions (keyed calls admitted or refused with 429); response-cache hits
 * and misses; the index version, build time and age; resident memory. Route patterns, never raw
 * paths: bounded label sets, and no id or key ever becomes a label (decisions.md, Keys in the URL).
 */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

export class ServiceMetrics {
  readonly requests = new Counter('http_requests_total', 'Answered requests by route pattern, method and status', ['route', 'method', 'status'])
  readonly latency = new Histogram('http_request_duration_seconds', 'Time from request to Response, by route pattern and status', ['route', 'method', 'status'])
  readonly limiter = new Counter('rate_limit_decisions_total', 'Keyed calls the rate limiter admitted or refused (429)', ['decision'])
  readonly startedAt = Date.now()

  readonly #admitted: CounterSeries
  readonly #refused: CounterSeries
  /**
   * The series of each (route, method, status) seen, by route, method and status: found with
   * lookups on values the request already holds (the route pattern is one of the app's strings,
   * the method one of KNOWN_METHODS) instead of a label key built and hashed twice per request.
   * Bounded like the series themselves: route patterns of the app, known methods, status codes.
   */
  readonly #byRoute = new Map<string, Map<string, Map<number, { requests: CounterSeries; latency: HistogramSeries }>>>()

  constructor(private readonly deps: AppDeps) {
    this.#admitted = this.limiter.series('admitted')
    this.#refused = this.limiter.series('refused')
  }

  observe(route: string, method: string, status: number, seconds: number, keyed: boolean): void {
    // A client chooses the method token: only the known ones become label values (bounded series).
    const m = KNOWN_METHODS.has(method) ? method : 'OTHER'
    let byRoute = this.#byRoute.get(route)
    if (byRoute === undefined) this.#byRoute.set(route, (byRoute = new Map()))
    let byMethod = byRoute.get(m)
    if (byMethod === undefined) byRoute.set(m, (byMethod = new Map()))
    let cell = byMethod.get(status)
    if (cell === undefined) {
      const k = route + SEP + m + SEP + status // = seriesKey([route, method, status])
      byMethod.set(status, (cell = { requests: this.requests.series(k), latency: this.latency.series(k) }))
    }
    cell.requests.value++
    observeIn(cell.latency, seconds)
    if (keyed && status !== 304 && status !== 401) (status === 429 ? this.#refused : this.#admitted).value++
  }

  render(now = Date.now()): string {
    const store = this.deps.stores.current
    const cache = responseCacheFor(this.deps.config)
    const built = Date.parse(store.manifest.built_at) / 1000
    return [
      this.requests.render(),
      this.latency.render(),
      this.limiter.render(),
      gauge('response_cache_hits_total', 'Answers served from the response cache (counter)', [[{}, cache.hits]]).replace('gauge', 'counter'),
      gauge('response_cache_misses_total', 'Answers computed and stored in the response cache (counter)', [[{}, cache.misses]]).replace('gauge', 'counter'),
      gauge('response_cache_entries', 'Entries in the response cache', [[{}, cache.size]]),
      gauge('response_cache_turnovers_total', 'Times the texts the response cache dropped added up to its byte bound, each followed by a full collection (counter)', [[{}, cache.turnovers]]).replace('gauge', 'counter'),
      gauge('index_info', 'The served index (value 1)', [[{ version: store.version, kind: store.manifest.kind }, 1]]),
      gauge('index_build_time_seconds', 'Unix time the served index was built', [[{}, built]]),
      gauge('index_age_seconds', 'Seconds since the served index was built', [[{}, Math.max(0, now / 1000 - built)]]),
      gauge('process_resident_memory_bytes', 'Resident set size', [[{}, process.memoryUsage.rss()]]),
      gauge('process_uptime_seconds', 'Seconds since the app was created', [[{}, (now - this.startedAt) / 1000]]),
    ].join('')
  }
}
