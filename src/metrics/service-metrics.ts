import type { AppDeps } from '../app-deps'
import { responseCacheFor } from '../query/response-cache'
import { Counter, gauge, Histogram, SERIES_SEPARATOR as SEP } from './metrics-registry'

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

  constructor(private readonly deps: AppDeps) {}

  observe(route: string, method: string, status: number, seconds: number, keyed: boolean): void {
    // A client chooses the method token: only the known ones become label values (bounded series).
    const k = route + SEP + (KNOWN_METHODS.has(method) ? method : 'OTHER') + SEP + status // = seriesKey([route, method, status])
    this.requests.incKey(k)
    this.latency.observeKey(k, seconds)
    if (keyed && status !== 304 && status !== 401) this.limiter.inc([status === 429 ? 'refused' : 'admitted'])
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
      gauge('index_info', 'The served index (value 1)', [[{ version: store.version, kind: store.manifest.kind }, 1]]),
      gauge('index_build_time_seconds', 'Unix time the served index was built', [[{}, built]]),
      gauge('index_age_seconds', 'Seconds since the served index was built', [[{}, Math.max(0, now / 1000 - built)]]),
      gauge('process_resident_memory_bytes', 'Resident set size', [[{}, process.memoryUsage.rss()]]),
      gauge('process_uptime_seconds', 'Seconds since the app was created', [[{}, (now - this.startedAt) / 1000]]),
    ].join('')
  }
}
