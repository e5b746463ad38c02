import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import type { Decision, Limits } from '../../src/limits/counter-store'
import type { KeyRecord } from '../../src/keys/key-store'
import { syncHook } from '../../src/http/sync-hook'
import { contextOf, type RequestContext } from '../../src/http/request-context'
import { effectiveLimits, rateLimitHeaders, refusal } from '../../src/limits/limit-rules'

/**
 * Per-key limits (interface.md, Limits; decisions.md): one atomic decision per keyed call asks the
 * counter store to count it in the UTC hour and day and take an in-flight slot, or refuses it
 * with 429 (refused calls are not counted). Runs at transform after auth and ETag, for the route
 * Elysia matched, so every answered keyed call counts (400, 404, 405 included) while 304s, /health
 * and unkeyed routes do not. The slot is given back once the answer is built, whatever it was
 * (answered() in the content-type and errors renderers; a slot that is somehow never given back is
 * purged as stale), and the X-RateLimit-* headers go on every keyed response, errors included.
 *
 * `If-None-Match: *` (plugins/etag): whether the answer is a 304 is known only once it is built,
 * so such a call is counted then, unless it became a 304 (decisions.md: 304s stay uncounted); a
 * key already at its limit is refused as usual.
 */
export function rateLimitPlugin(deps: AppDeps) {
  const clock = deps.clock ?? Date.now

  const apply = (ctx: RequestContext, decision: Decision, limits: Limits, now: number) => {
    ctx.addHeaders('always', rateLimitHeaders(limits, decision.hourCount, now, decision.dayCount))
    if (decision.refused) throw refusal(decision.refused, limits, now)
    if (decision.lease) ctx.lease = decision.lease // given back by ctx.answered(), or by the stream that holds it
  }

  /** For a `*` conditional within its limits: the headers now, the count once the answer is known. */
  const deferred = (ctx: RequestContext, record: KeyRecord, limits: Limits, hourCount: number, dayCount: number, now: number) => {
    ctx.addHeaders('always', rateLimitHeaders(limits, hourCount, now, dayCount))
    ctx.onAnswered(() => {
      if (ctx.notModified) return
      void Promise.resolve(deps.limits.acquire(record.id, limits, now)).then((d) => d.lease?.release())
    })
  }

  const plugin = new Elysia({ name: 'rate-limit' })
  // Memory decisions are synchronous: keep the hook synchronous so Elysia does not await it.
  if (deps.limits.kind === 'memory') {
    plugin.onTransform(
      { as: 'global' },
      syncHook(({ request }: { request: Request }) => {
        const ctx = contextOf(request)
        const record = ctx.key
        if (!record) return
        const now = clock()
        const limits = effectiveLimits(record, deps.config)
        if (ctx.star) {
          const usage = deps.limits.peek(record.id, now) as { hourCount: number; dayCount: number }
          if (usage.hourCount < limits.hourly && usage.dayCount < limits.daily) return void deferred(ctx, record, limits, usage.hourCount + 1, usage.dayCount + 1, now)
        }
        apply(ctx, deps.limits.acquire(record.id, limits, now) as Decision, limits, now)
      }),
    )
  } else {
    plugin.onTransform({ as: 'global' }, async ({ request }: { request: Request }) => {
      const ctx = contextOf(request)
      const record = ctx.key
      if (!record) return
      const now = clock()
      const limits = effectiveLimits(record, deps.config)
      if (ctx.star) {
        const usage = await deps.limits.peek(record.id, now)
        if (usage.hourCount < limits.hourly && usage.dayCount < limits.daily) return void deferred(ctx, record, limits, usage.hourCount + 1, usage.dayCount + 1, now)
      }
      apply(ctx, await deps.limits.acquire(record.id, limits, now), limits, now)
    })
  }
  return plugin
}
