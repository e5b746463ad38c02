import type { PluginDeps } from '../../src/app-deps'
import { JsonBody } from '../../src/http/json-body'
import { route, routesPlugin } from '../../src/http/route'
import { healthReport, HealthReportSchema } from './health-report'

/**
 * GET /health: no key, not counted (decisions.md; declared `keyed: false` below, so auth lets it through).
 * 200 while the service answers, with `status: degraded` when Redis is configured but down.
 */
export function healthPlugin(deps: PluginDeps) {
  const startedAt = Date.now()
  return routesPlugin(deps, 'health', 'service', [
    route({
      method: 'GET',
      path: '/health',
      summary: 'Service health',
      description: 'Index version, kind, photo count, build time, uptime and the rate-limit store. Needs no key and is not counted.',
      tags: ['service'],
      keyed: false,
      responses: { 200: { description: 'The service answers', schema: HealthReportSchema } },
      handle: ({ request }) => {
        const store = deps.stores.forRequest(request)
        const now = Date.now()
        return new JsonBody(JSON.stringify(healthReport(store, deps.limits.status(), startedAt, now)), 200, { 'cache-control': 'no-store' })
      },
    }),
  ])
}
