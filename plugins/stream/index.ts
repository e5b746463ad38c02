import type { PluginDeps } from '../../src/app-deps'
import { ProblemError } from '../../src/http/problems'
import { contextOf } from '../../src/http/request-context'
import { route, routesPlugin } from '../../src/http/route'
import { urlFacts } from '../../src/http/url-facts'
import { effectiveLimits, rateLimitHeaders } from '../../src/limits/limit-rules'
import { ByteSink } from '../../src/query/bytes/byte-sink'
import { parsePhotoQuery, PHOTO_PARAMS, querySchema } from '../../src/query/params/photo-params'
import { writePhoto } from '../../src/query/render/photo-json'
import { lastPosition, newPhotosAfter, startAfter } from '../../src/stream/new-photos'
import { endEvent, heartbeat, photoEvent, PHOTOS_PER_CHARGE, SSE_MEDIA_TYPE, STREAM_PATH } from '../../src/stream/sse-events'

/**
 * `GET /api/v2/photos/stream`: Server-Sent Events of new photos (docs/follow-new-photos.md).
 * After each index reload, one `photo` event per new photo matching the filters, its JSON as in
 * the list, `id:` its ledger position; Last-Event-ID resumes after that position (on any worker
 * or instance serving the same version folder, and after a restart). The stream reads the
 * current snapshot at each step, not the one pinned at its start, so it follows reloads. It holds
 * the request's in-flight slot while open, is charged one request per PHOTOS_PER_CHARGE photos
 * delivered, and a key holds at most STREAMS_PER_KEY of them (the next is a 429), counted where
 * the rate-limit counters are (CounterStore.openStream: this process, or every worker and instance
 * sharing Redis).
 */
const NOT_FOR_STREAMS = new Set(['sort', 'page', 'per_page', 'cursor'])
export const STREAM_QUERY_SCHEMA = querySchema(PHOTO_PARAMS.filter((p) => !NOT_FOR_STREAMS.has(p.name)))
/** Exactly the headers the route declares for its 200, beside the rate-limit and request-id headers every keyed answer has. */
const STREAM_HEADERS: Readonly<Record<string, string>> = { 'content-type': `${SSE_MEDIA_TYPE}; charset=utf-8`, 'cache-control': 'no-store', 'x-accel-buffering': 'no' }
/** Events per write: a reload of thousands of photos goes out in bounded pieces, as the client reads. */
const BATCH = 100

export function streamPlugin(deps: PluginDeps) {
  const heartbeatMs = Math.max(1, deps.config.streamHeartbeatS ?? 15) * 1000
  const perKeyLimit = deps.config.streamsPerKey ?? 5
  const clock = deps.clock ?? Date.now
  // Streams waiting for something to send: woken by a reload.
  const waiting = new Set<() => void>()
  deps.stores.onSwap(() => {
    for (const wake of [...waiting]) wake()
  })
  const encoder = new TextEncoder()

  return routesPlugin(deps, 'stream', 'photos', [
    route({
      method: 'GET',
      path: STREAM_PATH,
      summary: 'Live stream of new photos (Server-Sent Events)',
      description:
        'text/event-stream. After each index reload, one `photo` event per new photo matching the photo filters (its JSON as in the list; the output ' +
        'parameters apply), with `id:` its position in the arrival ledger, the same on every worker and instance. Send `Last-Event-ID` (EventSource does ' +
        'on reconnect) to resume after that position without a gap or a repeat, also after a server restart; without it the stream starts with the next ' +
        `new photo. A comment line every ${deps.config.streamHeartbeatS ?? 15} s keeps the connection open. The stream holds one in-flight slot while open and ` +
        `is charged one request per ${PHOTOS_PER_CHARGE} photos delivered (seen in X-RateLimit-Remaining of the next answer); when the key's limit is reached ` +
        `an \`end\` event says so and the stream closes. At most STREAMS_PER_KEY (default 5) open streams per key, on every worker and instance together: ` +
        'the next is a 429, not counted. No ETag: a stream is never a 304. Not an object with data.',
      query: STREAM_QUERY_SCHEMA,
      // A live stream has no validator: no ETag, and If-None-Match never makes it a 304.
      conditional: false,
      responses: {
        200: {
          description: 'The event stream',
          mediaType: SSE_MEDIA_TYPE,
          headers: {
            'Cache-Control': { description: '`no-store`: a live stream is never stored or replayed by a cache', required: true, schema: { type: 'string', const: 'no-store' } },
            'X-Accel-Buffering': { description: '`no`: a buffering proxy (nginx) passes each event on at once', required: true, schema: { type: 'string', const: 'no' } },
          },
        },
        400: { description: 'Invalid parameters (each one named)' },
        429: { description: 'STREAMS_PER_KEY streams already open for this key, or another limit' },
      },
      handle: async ({ request }) => {
        const ctx = contextOf(request)
        const store = deps.stores.forRequest(request)
        const q = parsePhotoQuery(urlFacts(request.url).params(), store)
        const record = ctx.key!
        const limits = effectiveLimits(record, deps.config)
        // HEAD (RFC 9110 §9.3.2): the GET's headers, no body: no stream opens, so no place is taken.
        if (request.method === 'HEAD') return new Response(null, { status: 200, headers: STREAM_HEADERS })
        const place = await deps.limits.openStream(record.id, perKeyLimit)
        if (!place) {
          // A refused call is not counted: give back the one counted when it was admitted.
          const now = clock()
          const back = await deps.limits.charge(record.id, -1, limits, now)
          ctx.addHeaders('always', rateLimitHeaders(limits, back.hourCount, now, back.dayCount))
          throw new ProblemError('rateLimited', `This API key already has ${perKeyLimit} photo streams open (STREAMS_PER_KEY). Close one, then retry.`, { retryAfter: 5, headers: { 'retry-after': '5' } })
        }
        const hold = ctx.hold()
        let after = startAfter(store, request.headers.get('last-event-id'))
        let uncharged = 0
        let closed = false
        let wake = () => {}
        let timer: ReturnType<typeof setTimeout> | undefined
        const finish = () => {
          if (closed) return
          closed = true
          place.release()
          waiting.delete(wake)
          clearTimeout(timer)
          hold.finish()
          wake()
        }
        request.signal.addEventListener('abort', finish)
        // Gone while the place was being taken: no abort event will come.
        if (request.signal.aborted) finish()

        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            // A reconnecting EventSource waits `retry` ms; an opening comment flushes the headers through proxies.
            controller.enqueue(encoder.encode(': stream of new photos\nretry: 2000\n\n'))
          },
          async pull(controller) {
            while (!closed) {
              const current = deps.stores.current
              const batch = newPhotosAfter(current, q.filters, after, BATCH)
              after = batch.scannedTo
              if (batch.rows.length > 0) {
                let text = ''
                for (let i = 0; i < batch.rows.length; i++) {
                  const sink = new ByteSink(1024)
                  writePhoto(sink, current, batch.rows[i]!, q.output)
                  text += photoEvent(batch.positions[i]!, sink.toString())
                }
                controller.enqueue(encoder.encode(text))
                hold.renew(clock())
                uncharged += batch.rows.length
                while (uncharged >= PHOTOS_PER_CHARGE) {
                  uncharged -= PHOTOS_PER_CHARGE
                  const c = await deps.limits.charge(record.id, 1, limits, clock())
                  if (c.refused) {
                    controller.enqueue(encoder.encode(endEvent(`rate limit reached (${c.refused}): the stream is charged one request per ${PHOTOS_PER_CHARGE} photos`)))
                    controller.close()
                    finish()
                    return
                  }
                }
                return
              }
              // More of the ledger to look at: keep scanning before waiting.
              if (after < lastPosition(current)) continue
              const woke = await new Promise<'reload' | 'beat'>((resolve) => {
                wake = () => resolve('reload')
                waiting.add(wake)
                timer = setTimeout(() => resolve('beat'), heartbeatMs)
              })
              waiting.delete(wake)
              clearTimeout(timer)
              if (closed) return
              if (woke === 'beat') {
                hold.renew(clock())
                controller.enqueue(encoder.encode(heartbeat()))
                return
              }
            }
          },
          cancel() {
            finish()
          },
        })
        return new Response(body, { status: 200, headers: STREAM_HEADERS })
      },
    }),
  ])
}
