import { acceptRanges } from '../../http/accept-ranges'
import { Type } from '@sinclair/typebox'
import type { ParamError } from '../../http/problems'
import { echo, INT32_MAX, intParam, rawParam, readParam, type ParamSpec } from '../params/param-parsers'
import { PHOTO_PARAMS, querySchema } from '../params/photo-params'

/**
 * The parameters of `GET /api/v2/photos/export`: every filter, sort and output parameter of the
 * photo list (the very same declarations, PHOTO_PARAMS, parsed by parsePhotoQuery), minus the
 * paging ones, plus `format` and `max_rows`.
 *
 * The format comes from `format=` when given, else from an exact mention in Accept; anything else
 * (no Accept, `*\/*`, an unknown type) gets JSON: one array of the photo objects, streamed, with
 * the JSON media type the other endpoints would negotiate (decisions.md, Clarifications: "No 406",
 * `format=` wins over Accept).
 */
export const EXPORT_PATH = '/api/v2/photos/export'

/** The values of `format=`. */
export const EXPORT_FORMATS = ['arrow', 'ndjson', 'csv'] as const
/** What an export answers with: a `format=` value, or JSON when neither format nor Accept chose one. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number] | 'json'

/** Media type and file extension of each format (Arrow IPC streaming format; RFC 4180 CSV). */
export const FORMAT_MEDIA: Record<Exclude<ExportFormat, 'json'>, { type: string; ext: string }> = {
  arrow: { type: 'application/vnd.apache.arrow.stream', ext: 'arrows' },
  ndjson: { type: 'application/x-ndjson', ext: 'ndjson' },
  csv: { type: 'text/csv', ext: 'csv' },
}

/** Rows one export may return when the operator sets no EXPORT_MAX_ROWS. */
export const DEFAULT_EXPORT_MAX_ROWS = 2_000_000

const FORMAT: ParamSpec<Exclude<ExportFormat, 'json'>> = {
  name: 'format',
  schema: Type.Union(EXPORT_FORMATS.map((f) => Type.Literal(f)), {
    description: 'arrow (Arrow IPC stream), ndjson (one photo object per line) or csv (RFC 4180, nested attributes flattened with "."). Wins over Accept.',
  }),
  parse(raw, errors) {
    const f = raw.toLowerCase()
    if ((EXPORT_FORMATS as readonly string[]).includes(f)) return f as Exclude<ExportFormat, 'json'>
    errors.push({ parameter: 'format', message: `must be one of ${EXPORT_FORMATS.join(', ')}, got "${echo(raw)}"` })
    return undefined
  },
}

const MAX_ROWS = intParam('max_rows', 0, INT32_MAX, `Return at most this many photos (the first in the requested order). The server caps it at EXPORT_MAX_ROWS (default ${DEFAULT_EXPORT_MAX_ROWS.toLocaleString('en')}).`)

/** Paging belongs to the list only: an export is every match, so these are accepted and ignored (the export route declares them so). */
export const PAGING_NAMES = ['page', 'per_page', 'cursor']

export const EXPORT_PARAMS: ParamSpec<unknown>[] = [FORMAT as ParamSpec<unknown>, MAX_ROWS as ParamSpec<unknown>, ...PHOTO_PARAMS.filter((p) => !PAGING_NAMES.includes(p.name))]
export const EXPORT_QUERY_SCHEMA = querySchema(EXPORT_PARAMS)

const ACCEPTED: Array<[string, Exclude<ExportFormat, 'json'>]> = Object.entries(FORMAT_MEDIA).map(([f, m]) => [m.type, f as Exclude<ExportFormat, 'json'>])

/**
 * The format Accept asks for: the listed export type with the highest q (RFC 9110 §12.5.1),
 * ties to the earlier mention; undefined when Accept names none of them with q > 0.
 */
export function formatFromAccept(accept: string | null): ExportFormat | undefined {
  if (!accept) return undefined
  let best: ExportFormat | undefined
  let bestQ = 0
  for (const { type, q } of acceptRanges(accept)) {
    const hit = ACCEPTED.find(([t]) => t === type)
    if (hit && q > bestQ) {
      best = hit[1]
      bestQ = q
    }
  }
  return best
}

/** The export's format and row cap, collecting bad values into `errors` (the photo parameters' 400 names them all). */
export function readExportParams(params: URLSearchParams, accept: string | null, serverMaxRows: number, errors: ParamError[]): { format: ExportFormat; maxRows: number } {
  const format = readParam(params, FORMAT, errors)
  const asked = readParam(params, MAX_ROWS, errors)
  return { format: format ?? formatFromAccept(accept) ?? 'json', maxRows: Math.min(asked ?? serverMaxRows, serverMaxRows) }
}

/**
 * The representation an export URL + Accept selects (for the entity tag: one tag per
 * representation, RFC 9110 §8.8.3), or undefined when `format` is invalid (the request is then a
 * 400, never a 304).
 */
export function exportVariant(params: URLSearchParams, accept: string | null): ExportFormat | undefined {
  const raw = rawParam(params, 'format')
  if (raw !== undefined) {
    const f = raw.toLowerCase()
    return (EXPORT_FORMATS as readonly string[]).includes(f) ? (f as ExportFormat) : undefined
  }
  return formatFromAccept(accept) ?? 'json'
}

/** What the entity tag of an export adds to the request key: the representation (format, and the JSON media type Accept chose). */
export function exportTagSuffix(format: ExportFormat, jsonType: string): string {
  return '\u0000format=' + format + (format === 'json' ? ';' + jsonType : '')
}
