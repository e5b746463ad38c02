import type { PluginDeps } from '../../src/app-deps'
import { originFor } from '../../src/http/links'
import { route, routesPlugin } from '../../src/http/route'
import { urlFacts } from '../../src/http/url-facts'
import { DEFAULT_EXPORT_MAX_ROWS, EXPORT_PATH, EXPORT_QUERY_SCHEMA, exportTagSuffix, FORMAT_MEDIA, PAGING_NAMES } from '../../src/query/export/export-params'
import { planExport, ROWS_PER_CALL } from '../../src/query/export/export-plan'
import { exportStream } from '../../src/query/export/export-stream'
import { contextOf } from '../../src/http/request-context'
import { negotiateMediaType } from '../../src/http/negotiate'
import { entityTag } from '../../src/http/entity-tag'
import { effectiveLimits, rateLimitHeaders } from '../../src/limits/limit-rules'
import { chargeExport } from '../../src/limits/charge-export'

/**
 * `GET /api/v2/photos/export`: every photo matching a photo-list query, streamed in the requested
 * order as Arrow, NDJSON, CSV or JSON (src/query/export). Thin: it pins the snapshot, plans the
 * export (the list's own parser: a bad parameter is the list's 400), charges it before the first
 * byte (src/limits/charge-export.ts), and hands the stream the in-flight slot, which is given back when
 * the stream ends, however it ends (completion, client gone, timeout).
 */
export function exportPlugin(deps: PluginDeps) {
  const serverMaxRows = deps.config.exportMaxRows ?? DEFAULT_EXPORT_MAX_ROWS
  const timeoutMs = (deps.config.exportTimeoutS ?? 300) * 1000
  const clock = deps.clock ?? Date.now

  return routesPlugin(deps, 'export', 'photos', [
    route({
      method: 'GET',
      path: EXPORT_PATH,
      summary: 'Export every matching photo (Arrow, NDJSON, CSV)',
      description:
        'Takes every filter, sort and output parameter of GET /api/v2/photos (same validation and errors; page, per_page and cursor are ignored) ' +
        'and streams ALL matching photos in the requested order, no pages. Format: format=arrow|ndjson|csv, else Accept ' +
        '(application/vnd.apache.arrow.stream, application/x-ndjson, text/csv), else one JSON array. NDJSON/JSON rows are the photo objects of the ' +
        'list\'s data; Arrow and CSV columns follow the requested fields, nested members flattened with "." (Arrow: Int32, DateDay, ' +
        `Timestamp(ms, UTC), Float64/Float32, Utf8 and dictionary-encoded strings). Charging: one request per started ${ROWS_PER_CALL} rows ` +
        '(after max_rows), checked before streaming: when the key has fewer left, 429 stating the cost. X-Export-Charged says how many were ' +
        `charged, X-Export-Rows how many rows follow. max_rows and the server cap EXPORT_MAX_ROWS (default ${DEFAULT_EXPORT_MAX_ROWS}) bound it; ` +
        'the export holds one in-flight slot while it streams; after EXPORT_TIMEOUT_S (default 300 s) it ends with an error row ' +
        '(NDJSON/JSON: {"error":{...}}, CSV: a "#error" record) or, for Arrow, the connection is cut before the end-of-stream marker.\n\n' +
        'Examples (docs/export.md):\n\n' +
        '- Arrow, read with apache-arrow: `tableFromIPC(new Uint8Array(await (await fetch(base + "/api/v2/photos/export?format=arrow&rovers=curiosity", ' +
        '{ headers: { "X-API-Key": key } })).arrayBuffer()))`\n' +
        '- NDJSON, read with DuckDB: `curl -H "X-API-Key: $KEY" -o spirit.ndjson "$BASE/api/v2/photos/export?format=ndjson&rovers=spirit"`, then ' +
        '`SELECT attributes.sol, count(*) FROM read_json_auto(\'spirit.ndjson\') GROUP BY 1`\n' +
        '- CSV, read with DuckDB: `curl -H "X-API-Key: $KEY" -H "Accept: text/csv" -o sols.csv "$BASE/api/v2/photos/export?sol_min=1000&sol_max=1010"`, then ' +
        '`SELECT sol, avg("dimensions.width") FROM read_csv_auto(\'sols.csv\') GROUP BY sol`',
      query: EXPORT_QUERY_SCHEMA,
      ignoresQuery: PAGING_NAMES,
      responses: {
        200: {
          description: 'The photos, streamed (Content-Disposition: attachment; filename="photos-<index version>.<ext>")',
          mediaTypes: ['application/vnd.apache.arrow.stream', 'application/x-ndjson', 'text/csv', 'application/json'],
        },
        304: { description: 'Not modified' },
        400: { description: 'Invalid parameters (each one named)' },
        429: { description: 'The export costs more requests than the key has left (the cost is stated), or another limit' },
      },
      tags: ['photos'],
      handle: async ({ request }) => {
        const store = deps.stores.forRequest(request)
        const f = urlFacts(request.url)
        const accept = request.headers.get('accept')
        const plan = await planExport(store, f.params(), accept, serverMaxRows)

        // HEAD (RFC 9110 §9.3.2): the GET's headers, no body, so nothing is streamed and only the call itself counts.
        const head = request.method === 'HEAD'
        let charged = 1
        const ctx = contextOf(request)
        const record = ctx.key
        if (record && !head) {
          const now = clock()
          const limits = effectiveLimits(record, deps.config)
          const { hourCount, dayCount, refusal } = await chargeExport(deps.limits, record.id, limits, plan.cost, plan.count, now)
          ctx.addHeaders('always', rateLimitHeaders(limits, hourCount, now, dayCount))
          if (refusal) throw refusal
          charged = plan.cost
        }

        const jsonType = negotiateMediaType(accept)
        const media = plan.format === 'json' ? { type: jsonType, ext: 'json' } : FORMAT_MEDIA[plan.format]
        const headers: Record<string, string> = {
          'content-type': plan.format === 'csv' ? 'text/csv; charset=utf-8; header=present' : media.type,
          // RFC 6266: a download, named after the index version it was taken from.
          'content-disposition': `attachment; filename="photos-${store.version}.${media.ext}"`,
          // RFC 9110 §12.5.5: without format=, Accept chose the representation.
          vary: 'Accept',
          etag: entityTag(store.version, originFor(request, deps.config), f.getKey() + exportTagSuffix(plan.format, jsonType)),
          'x-export-rows': String(plan.count),
          'x-export-total': String(plan.total),
          'x-export-charged': String(charged),
        }

        if (head) return new Response(null, { status: 200, headers })
        const hold = ctx.hold()
        const started = performance.now()
        const body = exportStream(plan, {
          signal: request.signal,
          timeoutMs,
          chunkRows: deps.config.exportChunkRows || undefined,
          renew: hold.renew,
          onEnd(outcome, rows) {
            hold.finish()
            deps.log.log(outcome === 'complete' ? 'info' : 'warn', 'export.end', {
              outcome, format: plan.format, rows, planned: plan.count, charged, version: store.version, ms: Math.round(performance.now() - started),
            })
          },
        })
        return new Response(body, { status: 200, headers })
      },
    }),
  ])
}
