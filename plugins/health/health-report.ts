import { Type, type Static } from '@sinclair/typebox'
import type { Store } from '../../src/store/store'
import type { CounterStoreStatus } from '../../src/limits/counter-store'
import { sampleNote } from '../../src/query/stats/catalogue-share'
import { SERVICE_VERSION } from '../../src/service-version'

/** The body of GET /health (decisions.md: index version, photo count and build time; behaviour.md §17). */
export const HealthReportSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
      description: '`degraded` while Redis is configured but unreachable (rate limits fall back to local counters)',
    }),
    version: Type.String({ description: 'Release of the service (semantic versioning; the same as the OpenAPI document\'s `info.version`)' }),
    timestamp: Type.String({ format: 'date-time' }),
    uptime_s: Type.Number({ description: 'Seconds since the process started serving' }),
    index: Type.Object({
      version: Type.String({ description: 'Content version of the loaded index; part of every ETag' }),
      kind: Type.Union([Type.Literal('real'), Type.Literal('synthetic')]),
      photos: Type.Integer({ minimum: 0 }),
      locations: Type.Integer({ minimum: 0 }),
      panoramas: Type.Integer({ minimum: 0 }),
      built_at: Type.String({ format: 'date-time' }),
      load_ms: Type.Number(),
      sample: Type.Optional(
        Type.Boolean({
          description:
            "True when the index holds less than 99% of the photos NASA's v1 manifests state for the rovers they cover (Curiosity, Opportunity, Spirit: catalogue_share on /api/v2/rovers); absent when the index records no NASA manifest to measure against (synthetic, or built from sources without them)",
        }),
      ),
      note: Type.Optional(Type.String({ description: 'With sample: true, one line saying so and how to mirror the rest' })),
    }),
    rate_limits: Type.Object({
      store: Type.Union([Type.Literal('memory'), Type.Literal('redis')]),
      redis_connected: Type.Optional(Type.Boolean()),
    }),
  },
  { additionalProperties: false },
)

export type HealthReport = Static<typeof HealthReportSchema>

export function healthReport(store: Store, limits: CounterStoreStatus, startedAtMs: number, nowMs: number): HealthReport {
  const degraded = limits.kind === 'redis' && limits.redisConnected === false
  const rl: HealthReport['rate_limits'] = { store: limits.kind }
  if (limits.kind === 'redis') rl.redis_connected = limits.redisConnected === true
  return {
    status: degraded ? 'degraded' : 'ok',
    version: SERVICE_VERSION,
    timestamp: new Date(nowMs).toISOString(),
    uptime_s: Math.round((nowMs - startedAtMs) / 100) / 10,
    index: {
      version: store.version,
      kind: store.manifest.kind,
      photos: store.manifest.rows.photos,
      locations: store.manifest.rows.locations,
      panoramas: store.manifest.rows.panoramas,
      built_at: store.manifest.built_at,
      load_ms: store.loadMs,
      ...sampleNote(store),
    },
    rate_limits: rl,
  }
}
