import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import type { Decision } from '../../src/limits/counter-store'
import { keyOf } from '../auth/key-of'
import { addHeaders, whenAnswered, whenRenewed } from '../content-type/answer-state'
import { effectiveLimits, rateLimitHeaders, refusal } from './limit-rules'

/**
 * Per-key limits (interface.md, Limits; decisions.md): one atomic decision per keyed call asks the
 * counter store to count it in the UTC hour and day and take an in-flight slot, or refuses it
 * with 429 (refused calls are not counted). Runs at onRequest after auth and ETag, so every
 * answered keyed call counts (400, 404, 405 included) while 304s, /health and unkeyed paths do
 * not. The slot is given back once the answer is built, whatever it was (answered() in the content-type
 * and errors renderers; a slot that is somehow never given back is purged as stale), and the
 * X-RateLimit-* headers go on every keyed response (plugins/content-type/answer-state.ts), errors included.
 */
export function rateLimitPlugin(deps: AppDeps) {
  const clock = deps.clock ?? Date.now

  const apply = (request: Request, decision: Decision, limits: ReturnType<typeof effectiveLimits>, now: number) => {
    addHeaders(request, 'always', rateLimitHeaders(limits, decision.hourCount, now))
    if (decision.refused) throw refusal(decision.refused, limits, now)
    const lease = decision.lease
    if (lease) whenAnswered(request, () => lease.release())
    if (lease?.renew) whenRenewed(request, (nowMs) => lease.renew!(nowMs))
  }

  const plugin = new Elysia({ name: 'rate-limit' })
  // Memory decisions are synchronous: keep the hook synchronous so Elysia does not await it.
  if (deps.limits.kind === 'memory') {
    plugin.onRequest(({ request }) => {
      const record = keyOf(request)
      if (!record) return
      const now = clock()
      const limits = effectiveLimits(record, deps.config)
      apply(request, deps.limits.acquire(record.id, limits, now) as Decision, limits, now)
    })
  } else {
    plugin.onRequest(async ({ request }) => {
      const record = keyOf(request)
      if (!record) return
      const now = clock()
      const limits = effectiveLimits(record, deps.config)
      apply(request, await deps.limits.acquire(record.id, limits, now), limits, now)
    })
  }
  return plugin
}
